import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type {
  ListResourcesResult, ListResourceTemplatesResult, ReadResourceResult, Resource, ResourceTemplate,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@estate/platform';
import { WireError } from '../mcp/wire-error';
import type { ResourceSubscriptions } from './resource.subscriptions';
import { stripEstateMeta } from '../upstream/upstream-answer.guard';
import { withheld, type UpstreamGateway } from './upstream.gateway';
import type { ResourceAttribution } from './resource.attribution';
import { bySeniority, type ReachableServer, type ResourceOwnership } from './upstream-access';
import { sessionCaller, type ProxyCaller } from './proxy.caller';
import type { ProxySessionState } from './proxy-session.state';

/** Upstream "resource not found" (the older spec's code) becomes ours, so it reads like any other unknown URI. */
const UPSTREAM_NOT_FOUND = -32002;

/** The one answer for a URI that does not exist and one the caller may not reach. */
export function unknownResource(uri: string): WireError {
  return new WireError(-32602, `Resource not found: ${uri}`, { uri });
}

/**
 * The host of a URI's authority, lower-cased: where a URI names its server. (Not the scheme:
 * servers share schemes such as file:, https: or an application's own.)
 */
function namespaceIn(uri: string): string | undefined {
  const host = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/?#@]*@)?([^/?#:]+)/i.exec(uri)?.[1];
  return host?.toLowerCase();
}

/**
 * resources/list, resources/templates/list and resources/read across the upstreams a caller
 * may reach. URIs pass through unchanged; each is attributed to the server that listed it
 * (or whose template matches it) in the caller's own map (a session's lasts; a 2026 request's
 * is filled by that request alone).
 */
export class ResourceProxy {
  constructor(private readonly gateway: UpstreamGateway, private readonly subscriptions: ResourceSubscriptions, private readonly logger: Logger) {}

  async list(caller: ProxyCaller): Promise<ListResourcesResult> {
    const resources: Resource[] = [];
    const ownership = this.gateway.resourceOwnership();
    for (const { target, client } of await this.listers(caller, ownership)) {
      try {
        const listed = await this.gateway.allPages(async (cursor) => {
          const page = await client.listResources(cursor ? { cursor } : undefined, { timeout: this.gateway.timeoutMs });
          return { items: page.resources, nextCursor: page.nextCursor };
        });
        const claimable = listed.filter((r) => this.mayClaim(ownership.namespaced, target.server, r.uri));
        for (const resource of claimable) caller.attribution.rememberResource(resource.uri, target.server);
        resources.push(...this.owned(caller.attribution, target.server, claimable));
      } catch (error) {
        this.logger.warn({ server: target.server, err: error }, 'could not list upstream resources');
      }
    }
    return { resources };
  }

  async templates(caller: ProxyCaller): Promise<ListResourceTemplatesResult> {
    const resourceTemplates: ResourceTemplate[] = [];
    const ownership = this.gateway.resourceOwnership();
    for (const { target, client } of await this.listers(caller, ownership)) {
      try {
        const listed = await this.gateway.allPages(async (cursor) => {
          const page = await client.listResourceTemplates(cursor ? { cursor } : undefined, { timeout: this.gateway.timeoutMs });
          return { items: page.resourceTemplates, nextCursor: page.nextCursor };
        });
        // Bound like URIs: a template in another server's namespace is not this server's to list.
        const claimable = listed.filter((t) => this.mayClaim(ownership.namespaced, target.server, t.uriTemplate));
        for (const template of claimable) caller.attribution.rememberTemplate(template.uriTemplate, target.server);
        // A template another server listed first stays that server's.
        resourceTemplates.push(...this.ownedTemplates(caller.attribution, target.server, claimable));
      } catch (error) {
        this.logger.warn({ server: target.server, err: error }, 'could not list upstream resource templates');
      }
    }
    return { resourceTemplates };
  }

  async read(caller: ProxyCaller, uri: string): Promise<ReadResourceResult> {
    const { target, client } = await this.owner(caller, uri);
    let answer: ReadResourceResult;
    try {
      answer = await this.gateway.run(caller, target.server, () =>
        client.readResource({ uri }, { timeout: this.gateway.timeoutMs, signal: caller.signal }));
    } catch (error) {
      if ((error as { code?: unknown }).code === UPSTREAM_NOT_FOUND) throw unknownResource(uri);
      throw this.gateway.failure(error, target.server, 'resources/read');
    }
    return this.checked(caller.attribution, target.server, uri, stripEstateMeta(answer));
  }

  /**
   * Contents are bound to their server: an entry for a URI another server owns (or nobody listed,
   * other than the one asked for) is dropped, so one upstream cannot answer for another. Text then
   * passes the prompt-text rules.
   */
  private checked(map: ResourceAttribution, server: string, uri: string, answer: ReadResourceResult): ReadResourceResult {
    const contents = answer.contents.filter((c) => c.uri === uri || map.serverOf(c.uri) === server);
    if (contents.length < answer.contents.length) {
      this.logger.warn({ server, uri, dropped: answer.contents.filter((c) => !contents.includes(c)).map((c) => c.uri) }, 'an upstream answered for URIs it does not own');
    }
    const texts = contents.flatMap((c, i) => ('text' in c && typeof c.text === 'string' ? [{ path: `$.contents[${i}].text`, text: c.text }] : []));
    const hide = this.gateway.checkTexts(server, 'resources/read', texts);
    return {
      ...answer,
      contents: contents.map((c, i) => ('text' in c && typeof c.text === 'string' ? { ...c, text: withheld(hide, `$.contents[${i}].text`, c.text) } : c)),
    };
  }

  /**
   * The servers that may list resources to this caller, the longest in the estate first: a URI
   * two of them list is the elder's (listers fill the caller's map in this order), so a server
   * registered later cannot take over a URI another already served, whatever their names.
   */
  private async listers(caller: ProxyCaller, ownership: ResourceOwnership): Promise<Array<{ target: ReachableServer; client: Client }>> {
    const elderFirst = bySeniority(ownership);
    return (await this.gateway.withCapability(caller, 'resources')).sort((a, b) => elderFirst(a.target, b.target));
  }

  /**
   * A URI whose authority is a server's namespace (`notes://alpha/doc`) belongs to that server
   * alone, whoever lists it, even for a caller who cannot reach that server; any other URI goes to
   * the eldest server that lists it.
   */
  private mayClaim(namespaces: ReadonlySet<string>, server: string, uri: string): boolean {
    const named = namespaceIn(uri);
    const owner = named !== undefined && namespaces.has(named) ? named : undefined;
    if (owner !== undefined && owner !== server) {
      this.logger.warn({ server, uri, owner }, 'an upstream listed a URI in another server\'s namespace');
      return false;
    }
    return true;
  }

  /** The listed templates this server owns in the caller's map, with their texts checked like resources'. */
  private ownedTemplates(map: ResourceAttribution, server: string, listed: ResourceTemplate[]): ResourceTemplate[] {
    return listed.flatMap((template) => {
      if (map.templates.get(template.uriTemplate)?.server !== server) return [];
      const clean = this.checkedListing(server, 'resources/templates/list', template);
      return clean ? [clean] : [];
    });
  }

  /** A listed resource or template with its description and title checked; undefined when the text action refuses it. */
  private checkedListing<T extends Resource | ResourceTemplate>(server: string, method: string, item: T): T | undefined {
    const texts = [{ path: '$.name', text: item.name }, { path: '$.description', text: item.description ?? '' }, { path: '$.title', text: item.title ?? '' }];
    const hide = this.gateway.checkListed(server, method, texts);
    // A name is what a client shows for the item: one the rules refuse leaves the item out, under any action.
    if (hide === 'drop' || hide.has('$.name')) return undefined;
    const clean = stripEstateMeta(item);
    if (clean.description !== undefined) clean.description = withheld(hide, '$.description', clean.description);
    if (clean.title !== undefined) clean.title = withheld(hide, '$.title', clean.title);
    return clean;
  }

  /** The listed resources this server owns in the caller's map (the first server to list a URI owns it), with their texts checked. */
  private owned(map: ResourceAttribution, server: string, listed: Resource[]): Resource[] {
    return listed.flatMap((resource) => {
      if (map.resources.get(resource.uri) !== server) return [];
      const clean = this.checkedListing(server, 'resources/list', resource);
      return clean ? [clean] : [];
    });
  }

  async subscribe(state: ProxySessionState, uri: string): Promise<Record<string, never>> {
    const { target, client } = await this.owner(sessionCaller(state), uri);
    if (!client.getServerCapabilities()?.resources?.subscribe) throw new WireError(-32601, `Method not found: the server of ${uri} offers no subscriptions`);
    try {
      await this.subscriptions.subscribe(state, target.server, client, uri, this.gateway.timeoutMs);
    } catch (error) {
      throw this.gateway.failure(error, target.server, 'resources/subscribe');
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
  async owner(caller: ProxyCaller, uri: string): Promise<{ target: ReachableServer; client: Client }> {
    let server = caller.attribution.serverOf(uri);
    if (server === undefined) {
      // A client may use a URI it got elsewhere (a resource link); learn what the caller may reach, once.
      await this.list(caller);
      await this.templates(caller);
      server = caller.attribution.serverOf(uri);
    }
    const target = this.gateway.reachable(caller).find((s) => s.server === server);
    const client = target && (await this.gateway.clientOf(target));
    if (!target || !client?.getServerCapabilities()?.resources) throw unknownResource(uri);
    return { target, client };
  }
}
