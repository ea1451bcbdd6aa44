import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Principal } from '@estate/contracts';
import type { Pins } from '@estate/catalog';
import { SessionLifecycle } from '@estate/protocol';

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
  http?: StreamableHTTPServerTransport;
  private listChangedPending = false;

  constructor(readonly id: string, readonly principal: Principal, now: number) {
    this.lastSeen = now;
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
