import type { EventEnvelope } from '@estate/events';
import { ConcurrencyConflict, readDecideAppend, type AppendMeta, type EventStore, type NewEvent, type StreamUpdate } from './event-store.port';

/** The event store port in memory, for use-case specs: same version checks, no database. */
export class InMemoryEventStore implements EventStore {
  private readonly streams = new Map<string, EventEnvelope[]>();
  private sequence = 0;
  /** Runs once, just before the next append lands: lets a spec slip in a competing writer. */
  beforeNextAppend?: () => void;

  constructor(private readonly clock: () => Date = () => new Date(0)) {}

  async readStream(streamId: string, fromVersion = 0): Promise<EventEnvelope[]> {
    return (this.streams.get(streamId) ?? []).slice(fromVersion);
  }

  async append(streamId: string, expectedVersion: number, events: NewEvent[], meta: AppendMeta): Promise<EventEnvelope[]> {
    const hook = this.beforeNextAppend;
    this.beforeNextAppend = undefined;
    hook?.();
    const stream = this.streams.get(streamId) ?? [];
    if (stream.length !== expectedVersion) throw new ConcurrencyConflict(streamId, expectedVersion);
    const stamped = events.map((event, index): EventEnvelope => ({
      id: `event-${(this.sequence += 1)}`, type: event.type, version: event.version, stream: streamId, position: expectedVersion + index,
      occurredAt: this.clock().toISOString(), actor: meta.actor, correlationId: meta.correlationId, data: event.data,
    }));
    this.streams.set(streamId, [...stream, ...stamped]);
    return stamped;
  }

  update<T>(streamId: string, fromVersion: number, decide: (newer: EventEnvelope[]) => StreamUpdate<T>, meta: AppendMeta, known?: boolean): Promise<T> {
    return readDecideAppend(this, streamId, fromVersion, decide, meta, known);
  }

  async listStreams(prefix: string): Promise<string[]> {
    return [...this.streams.keys()].filter((id) => id.startsWith(prefix)).sort();
  }
}
