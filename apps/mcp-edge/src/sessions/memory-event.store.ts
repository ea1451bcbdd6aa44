import type { EventStore, EventId, StreamId } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isJsonRpcResponse as isResponse } from '@estate/protocol';

const PER_STREAM = 256;
/** Request streams still waiting for their response: a client may have many requests in flight. */
const MAX_OPEN_STREAMS = 64;
/**
 * Answered request streams kept for a client that lost the connection while the response was on
 * the wire. Only the newest few: a tools/list page is large and a session makes many requests.
 */
const KEEP_ANSWERED = 2;
/** The SDK's id for the standalone GET stream: never evicted, it is the one clients resume most. */
const STANDALONE = '_GET_stream';

interface StoredStream {
  events: Array<{ id: EventId; message: JSONRPCMessage }>;
  answered: boolean;
}

/**
 * Keeps the last messages of each SSE stream of one session so a client that reconnects with
 * Last-Event-ID gets what it missed. The standalone GET stream keeps its last messages for the
 * life of the session; a request stream is dropped soon after its response (only the newest
 * answered ones stay), and unanswered ones are bounded in number (the oldest go first).
 */
export class SessionEventStore implements EventStore {
  private sequence = 0;
  private readonly streams = new Map<StreamId, StoredStream>();
  /** Answered request streams still kept, oldest first. */
  private readonly answered: StreamId[] = [];

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    this.sequence += 1;
    const id = `${streamId}|${this.sequence}`;
    let stream = this.streams.get(streamId);
    if (!stream) {
      stream = { events: [], answered: false };
      this.streams.set(streamId, stream);
      this.evictOpenStream();
    }
    stream.events.push({ id, message });
    if (stream.events.length > PER_STREAM) stream.events.shift();
    if (streamId !== STANDALONE && !stream.answered && isResponse(message)) this.markAnswered(streamId, stream);
    return id;
  }

  private markAnswered(streamId: StreamId, stream: StoredStream): void {
    stream.answered = true;
    this.answered.push(streamId);
    while (this.answered.length > KEEP_ANSWERED) this.streams.delete(this.answered.shift() as StreamId);
  }

  private evictOpenStream(): void {
    if (this.streams.size - this.answered.length <= MAX_OPEN_STREAMS + (this.streams.has(STANDALONE) ? 1 : 0)) return;
    for (const [key, stream] of this.streams) {
      if (key === STANDALONE || stream.answered) continue;
      this.streams.delete(key);
      return;
    }
  }

  /** How many messages of a stream are kept for replay. */
  count(streamId: StreamId): number {
    return this.streams.get(streamId)?.events.length ?? 0;
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
    for (const event of this.streams.get(streamId)?.events ?? []) {
      if (Number(event.id.split('|')[1]) > after) await send(event.id, event.message);
    }
    return streamId;
  }
}
