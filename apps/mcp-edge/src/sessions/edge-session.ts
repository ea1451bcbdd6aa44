import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Principal } from '@estate/contracts';
import type { Pins } from '@estate/catalog';
import type { HttpSessionTransport } from '../http/streamable-http.transport';
import type { SessionEventStore } from './memory-event.store';
import { negotiateProtocolVersion, SessionLifecycle, type JsonRpcRequest } from '@estate/protocol';

/** One downstream MCP session: bound to the principal that opened it, with its own SDK server. */
export class EdgeSession {
  lastSeen: number;
  protocolVersion?: string;
  pins: Pins = {};
  /** Open GET streams: a session that is listening is not idle. */
  openStreams = 0;
  readonly lifecycle = new SessionLifecycle();
  server!: Server;
  /** The SDK transport the server is connected to (Streamable HTTP or stdio). */
  transport!: Transport;
  /** Set for HTTP sessions: the endpoint hands requests to it. */
  http?: HttpSessionTransport;
  /** What an HTTP session keeps for clients that reconnect with Last-Event-ID. */
  events?: SessionEventStore;
  private listChangedPending = false;

  constructor(readonly id: string, readonly principal: Principal, now: number) {
    this.lastSeen = now;
  }

  /**
   * Settles the version for an admitted initialize request and returns the request to hand to
   * the SDK. The SDK server would echo 2024-10-07, which it still knows and we do not speak, so
   * the request it sees carries the version we chose: its answer and `protocolVersion` agree.
   */
  acceptInitialize(request: JsonRpcRequest): JsonRpcRequest {
    const params = request.params ?? {};
    const version = negotiateProtocolVersion(params.protocolVersion);
    this.protocolVersion = version;
    this.lifecycle.onInitializeAnswered(version);
    return { ...request, params: { ...params, protocolVersion: version } };
  }

  /** Messages of one SSE stream kept for replay (the standalone GET stream is `_GET_stream`). */
  storedEvents(streamId: string): number {
    return this.events?.count(streamId) ?? 0;
  }

  /** Several catalog changes in one tick become one notification. */
  notifyListChanged(): void {
    if (this.listChangedPending || this.lifecycle.phase !== 'operating') return;
    this.listChangedPending = true;
    setImmediate(() => {
      this.listChangedPending = false;
      void this.server.sendToolListChanged().catch(() => undefined);
    });
  }

  async close(): Promise<void> {
    this.lifecycle.close?.();
    await this.transport.close().catch(() => undefined);
    await this.server.close().catch(() => undefined);
  }
}
