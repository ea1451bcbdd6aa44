import { Inject, Injectable } from '@nestjs/common';
import type { Outcome } from '../command/outcome';
import { PublishHandler } from '../publish/publish.handler';
import type { PublishAnswer } from '../publish/publish.command';
import type { AppendMeta } from '../store/event-store.port';

/**
 * Dry-runs a publish: the classifier's report exactly as a publish would answer it, nothing
 * stored. Deliberately a pass-through, so whatever the report gains reaches `check` too.
 */
@Injectable()
export class CheckHandler {
  constructor(@Inject(PublishHandler) private readonly publish: PublishHandler) {}

  execute(spec: unknown, meta: AppendMeta): Promise<Outcome<PublishAnswer>> {
    return this.publish.execute(spec, meta, { dryRun: true });
  }
}
