import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@estate/contracts';
import { EVENT_STORE } from '../command/registry.tokens';
import { toolHistoryFor, type ToolChange } from '../domain/tool-history.policy';
import { toolStreamId } from '../domain/tool.decider';
import type { EventStore } from '../store/event-store.port';

/** Every change of one tool, read from its stream in the event store (the facts themselves, not a projection of them). */
@Injectable()
export class ToolHistoryQuery {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  /** undefined for a missing tool and a hidden one alike; the stream is read either way, so both cost the same. */
  async history(viewer: Principal, name: string): Promise<{ name: string; changes: ToolChange[] } | undefined> {
    const changes = toolHistoryFor(viewer, await this.store.readStream(toolStreamId(name)));
    return changes === undefined ? undefined : { name, changes };
  }
}
