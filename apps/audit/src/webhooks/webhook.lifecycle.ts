import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { WebhookDispatcher } from './webhook.dispatcher';

/**
 * Workers start once audit listens (startAudit calls `start`: every delivery names the address
 * audit advertises, which may be known only then) and stop before any shutdown hook closes the
 * database (every `beforeApplicationShutdown` runs before the first `onApplicationShutdown`): an
 * attempt in flight is aborted at once, uncounted, and sent again after a restart.
 */
@Injectable()
export class WebhookLifecycle implements BeforeApplicationShutdown {
  constructor(@Inject(WebhookDispatcher) private readonly dispatcher: WebhookDispatcher) {}

  start(): Promise<void> {
    return this.dispatcher.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.dispatcher.stop();
  }
}
