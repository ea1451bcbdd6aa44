import type { EventStore, EventId, StreamId } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const PER_STREAM = 256;

/**
 * Keeps the last messages of each SSE stream of one session so a client that reconnects with
 * Last-Event-ID gets what it missed. Bounded per stream; lives and dies with the session.
 */
export class SessionEventStore implements EventStore {
  private sequence = 0;
  private readonly streams = new Map<StreamId, Array<{ id: EventId; message: JSONRPCMessage }>>();

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    this.sequence += 1;
    const id = `${streamId}|${this.sequence}`;
    const events = this.streams.get(streamId) ?? [];
    events.push({ id, message });
    if (events.length > PER_STREAM) events.shift();
    this.streams.set(streamId, events);
    return id;
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
