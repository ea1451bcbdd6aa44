import type { EventStore, EventId, StreamId } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const PER_STREAM = 256;
/** Every POST opens a stream of its own, so a long session would otherwise keep one per request. */
const MAX_STREAMS = 64;
/** The SDK's id for the standalone GET stream: never evicted, it is the one clients resume most. */
const STANDALONE = '_GET_stream';

/**
 * Keeps the last messages of each SSE stream of one session so a client that reconnects with
 * Last-Event-ID gets what it missed. Bounded per stream and in streams (the oldest request
 * streams go first); lives and dies with the session.
 */
export class SessionEventStore implements EventStore {
  private sequence = 0;
  private readonly streams = new Map<StreamId, Array<{ id: EventId; message: JSONRPCMessage }>>();

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    this.sequence += 1;
    const id = `${streamId}|${this.sequence}`;
    let events = this.streams.get(streamId);
    if (!events) {
      events = [];
      this.streams.set(streamId, events);
      this.evictOldStream();
    }
    events.push({ id, message });
    if (events.length > PER_STREAM) events.shift();
    return id;
  }

  private evictOldStream(): void {
    if (this.streams.size <= MAX_STREAMS) return;
    for (const key of this.streams.keys()) {
      if (key === STANDALONE) continue;
      this.streams.delete(key);
      return;
    }
  }

  /** How many messages of a stream are kept for replay. */
  count(streamId: StreamId): number {
    return this.streams.get(streamId)?.length ?? 0;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    const streamId = eventId.split('|')[0];
    return this.streams.has(streamId) ? streamId : undefined;
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const [streamId, seq] = lastEventId.split('|');
    const after = Number(seq);
    for (const event of this.streams.get(streamId) ?? []) {
      if (Number(event.id.split('|')[1]) > after) await send(event.id, event.message);
    }
    return streamId;
  }
}
