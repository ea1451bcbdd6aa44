import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CatalogUpstream } from '@estate/events';
import type { Logger } from '@estate/platform';
import { ProxySessionState } from './proxy-session.state';

/** A 2026-07-28 listen stream watching URIs: it judges for itself whether its principal may still hear of one. */
export interface ResourceWatcher {
  resourceUpdated(server: string, uri: string): void;
}

/** A session (resources/subscribe) or a listen stream (its resourceSubscriptions). */
export type ResourceSubscriber = ProxySessionState | ResourceWatcher;

/**
 * Resource subscriptions over shared upstream connections: the edge subscribes upstream once per
 * URI while any session or listen stream wants it, and relays `notifications/resources/updated`
 * to exactly the subscribers of that URI.
 */
export class ResourceSubscriptions {
  /** server → uri → subscribers */
  private readonly byServer = new Map<string, Map<string, Set<ResourceSubscriber>>>();
  /** The client each server's subscriptions were made on, to undo them when the last subscriber leaves. */
  private readonly clients = new Map<string, Client>();

  constructor(private readonly logger: Logger) {}

  /** Installs the relay on a new upstream client (UpstreamPool.onClient). */
  setup(client: Client, upstream: CatalogUpstream): void {
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => this.updated(upstream.server, n.params.uri));
  }

  async subscribe(state: ResourceSubscriber, server: string, client: Client, uri: string, timeoutMs: number): Promise<void> {
    const uris = this.byServer.get(server) ?? new Map<string, Set<ResourceSubscriber>>();
    this.byServer.set(server, uris);
    const sessions = uris.get(uri) ?? new Set<ResourceSubscriber>();
    if (sessions.size === 0) await client.subscribeResource({ uri }, { timeout: timeoutMs });
    this.clients.set(server, client);
    sessions.add(state);
    uris.set(uri, sessions);
  }

  async unsubscribe(state: ResourceSubscriber, server: string, uri: string, timeoutMs: number): Promise<void> {
    const sessions = this.byServer.get(server)?.get(uri);
    if (!sessions?.delete(state) || sessions.size > 0) return;
    this.byServer.get(server)?.delete(uri);
    await this.clients.get(server)?.unsubscribeResource({ uri }, { timeout: timeoutMs }).catch((error: unknown) =>
      this.logger.debug({ server, uri, err: error }, 'could not unsubscribe upstream'));
  }

  /** A closed session or stream stops being a subscriber; a URI nobody wants any more is unsubscribed upstream. */
  forget(state: ResourceSubscriber, timeoutMs: number): void {
    for (const [server, uris] of this.byServer) {
      for (const [uri, sessions] of uris) if (sessions.has(state)) void this.unsubscribe(state, server, uri, timeoutMs);
    }
  }

  private updated(server: string, uri: string): void {
    for (const state of this.byServer.get(server)?.get(uri) ?? []) {
      if (!(state instanceof ProxySessionState)) {
        state.resourceUpdated(server, uri);
        continue;
      }
      if (state.session.lifecycle.phase !== 'operating') continue;
      void state.server.sendResourceUpdated({ uri }).catch((error: unknown) => this.logger.debug({ err: error, uri }, 'could not relay a resource update'));
    }
  }
}
