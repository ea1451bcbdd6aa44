import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CatalogUpstream } from '@estate/events';
import type { Logger } from '@estate/platform';
import type { ProxySessionState } from './proxy-session.state';

/**
 * Resource subscriptions over shared upstream connections: the edge subscribes upstream once per
 * URI while any session wants it, and relays `notifications/resources/updated` to exactly the
 * sessions subscribed to that URI.
 */
export class ResourceSubscriptions {
  /** server → uri → subscribed sessions */
  private readonly byServer = new Map<string, Map<string, Set<ProxySessionState>>>();
  /** The client each server's subscriptions were made on, to undo them when the last subscriber leaves. */
  private readonly clients = new Map<string, Client>();

  constructor(private readonly logger: Logger) {}

  /** Installs the relay on a new upstream client (UpstreamPool.onClient). */
  setup(client: Client, upstream: CatalogUpstream): void {
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => this.updated(upstream.server, n.params.uri));
  }

  async subscribe(state: ProxySessionState, server: string, client: Client, uri: string, timeoutMs: number): Promise<void> {
    const uris = this.byServer.get(server) ?? new Map<string, Set<ProxySessionState>>();
    this.byServer.set(server, uris);
    const sessions = uris.get(uri) ?? new Set<ProxySessionState>();
    if (sessions.size === 0) await client.subscribeResource({ uri }, { timeout: timeoutMs });
    this.clients.set(server, client);
    sessions.add(state);
    uris.set(uri, sessions);
  }

  async unsubscribe(state: ProxySessionState, server: string, uri: string, timeoutMs: number): Promise<void> {
    const sessions = this.byServer.get(server)?.get(uri);
    if (!sessions?.delete(state) || sessions.size > 0) return;
    this.byServer.get(server)?.delete(uri);
    await this.clients.get(server)?.unsubscribeResource({ uri }, { timeout: timeoutMs }).catch((error: unknown) =>
      this.logger.debug({ server, uri, err: error }, 'could not unsubscribe upstream'));
  }

  /** A closed session stops being a subscriber; a URI nobody wants any more is unsubscribed upstream. */
  forget(state: ProxySessionState, timeoutMs: number): void {
    for (const [server, uris] of this.byServer) {
      for (const [uri, sessions] of uris) if (sessions.has(state)) void this.unsubscribe(state, server, uri, timeoutMs);
    }
  }

  private updated(server: string, uri: string): void {
    for (const state of this.byServer.get(server)?.get(uri) ?? []) {
      if (state.session.lifecycle.phase !== 'operating') continue;
      void state.server.sendResourceUpdated({ uri }).catch((error: unknown) => this.logger.debug({ err: error, uri }, 'could not relay a resource update'));
    }
  }
}
