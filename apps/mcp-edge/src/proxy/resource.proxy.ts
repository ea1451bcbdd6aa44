import type {
  ListResourcesResult, ListResourceTemplatesResult, ReadResourceResult, Resource, ResourceTemplate,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@estate/platform';
import { WireError } from '../mcp/wire-error';
import type { ResourceSubscriptions } from './resource.subscriptions';
import { toWireError, type UpstreamGateway } from './upstream.gateway';
import type { HandlerExtra, ProxySessionState } from './proxy-session.state';

/** Upstream "resource not found" (the older spec's code) becomes ours, so it reads like any other unknown URI. */
const UPSTREAM_NOT_FOUND = -32002;

/** The one answer for a URI that does not exist and one the caller may not reach. */
export function unknownResource(uri: string): WireError {
  return new WireError(-32602, `Resource not found: ${uri}`, { uri });
}

/**
 * resources/list, resources/templates/list and resources/read across the upstreams a session
 * may reach. URIs pass through unchanged; each is attributed to the server that listed it
 * (or whose template matches it) in the session's own map.
 */
export class ResourceProxy {
  constructor(private readonly gateway: UpstreamGateway, private readonly subscriptions: ResourceSubscriptions, private readonly logger: Logger) {}

  async list(state: ProxySessionState): Promise<ListResourcesResult> {
    const resources: Resource[] = [];
    for (const { target, client } of await this.gateway.withCapability(state, 'resources')) {
      try {
        const listed = await this.gateway.allPages(async (cursor) => {
          const page = await client.listResources(cursor ? { cursor } : undefined, { timeout: this.gateway.timeoutMs });
          return { items: page.resources, nextCursor: page.nextCursor };
        });
        for (const resource of listed) state.rememberResource(resource.uri, target.server);
        resources.push(...listed);
      } catch (error) {
        this.logger.warn({ server: target.server, err: error }, 'could not list upstream resources');
      }
    }
    return { resources };
  }

  async templates(state: ProxySessionState): Promise<ListResourceTemplatesResult> {
    const resourceTemplates: ResourceTemplate[] = [];
    for (const { target, client } of await this.gateway.withCapability(state, 'resources')) {
      try {
        const listed = await this.gateway.allPages(async (cursor) => {
          const page = await client.listResourceTemplates(cursor ? { cursor } : undefined, { timeout: this.gateway.timeoutMs });
          return { items: page.resourceTemplates, nextCursor: page.nextCursor };
        });
        for (const template of listed) state.rememberTemplate(template.uriTemplate, target.server);
        resourceTemplates.push(...listed);
      } catch (error) {
        this.logger.warn({ server: target.server, err: error }, 'could not list upstream resource templates');
      }
    }
    return { resourceTemplates };
  }

  async read(state: ProxySessionState, uri: string, extra: HandlerExtra): Promise<ReadResourceResult> {
    const { target, client } = await this.owner(state, uri);
    try {
      return await this.gateway.run(state, target.server, extra, () =>
        client.readResource({ uri }, { timeout: this.gateway.timeoutMs, signal: extra.signal }));
    } catch (error) {
      if ((error as { code?: unknown }).code === UPSTREAM_NOT_FOUND) throw unknownResource(uri);
      throw toWireError(error, target.server);
    }
  }

  async subscribe(state: ProxySessionState, uri: string): Promise<Record<string, never>> {
    const { target, client } = await this.owner(state, uri);
    if (!client.getServerCapabilities()?.resources?.subscribe) throw new WireError(-32601, `Method not found: the server of ${uri} offers no subscriptions`);
    try {
      await this.subscriptions.subscribe(state, target.server, client, uri, this.gateway.timeoutMs);
    } catch (error) {
      throw toWireError(error, target.server);
    }
    return {};
  }

  /** Unsubscribing from something never subscribed is harmless, so it always succeeds. */
  async unsubscribe(state: ProxySessionState, uri: string): Promise<Record<string, never>> {
    const server = state.serverOf(uri);
    if (server !== undefined) await this.subscriptions.unsubscribe(state, server, uri, this.gateway.timeoutMs);
    return {};
  }

  /** The reachable server a URI belongs to, and its client; otherwise the unknown-resource error. */
  private async owner(state: ProxySessionState, uri: string) {
    let server = state.serverOf(uri);
    if (server === undefined) {
      // A client may use a URI it got elsewhere (a resource link); learn what the session may reach, once.
      await this.list(state);
      await this.templates(state);
      server = state.serverOf(uri);
    }
    const target = this.gateway.reachable(state).find((s) => s.server === server);
    const client = target && (await this.gateway.clientOf(target));
    if (!target || !client?.getServerCapabilities()?.resources) throw unknownResource(uri);
    return { target, client };
  }
}
