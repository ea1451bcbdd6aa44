import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@estate/platform';
import type { CatalogReplica } from '../catalog/catalog.replica';
import { WireError } from '../mcp/wire-error';
import type { UpstreamPool } from '../upstream/upstream.pool';
import type { InFlightRegistry, ProxySessionState, HandlerExtra } from './proxy-session.state';
import { reachableServers, type ReachableServer } from './upstream-access';

/** More pages than this from one upstream is a misbehaving upstream, not a big one. */
const MAX_PAGES = 50;

/** What the resource and prompt proxies share: who may reach which upstream, and how to ask it. */
export class UpstreamGateway {
  constructor(
    private readonly replica: CatalogReplica,
    private readonly upstreams: UpstreamPool,
    readonly inFlight: InFlightRegistry,
    private readonly logger: Logger,
    readonly timeoutMs: number,
  ) {}

  reachable(state: ProxySessionState): ReachableServer[] {
    return reachableServers(this.replica.all(), state.session.principal);
  }

  /** The reachable servers that declare a capability, each with its connected client; unreachable upstreams are skipped. */
  async withCapability(state: ProxySessionState, capability: keyof ServerCapabilities): Promise<Array<{ target: ReachableServer; client: Client }>> {
    const out: Array<{ target: ReachableServer; client: Client }> = [];
    for (const target of this.reachable(state)) {
      const client = await this.clientOf(target);
      if (client?.getServerCapabilities()?.[capability]) out.push({ target, client });
    }
    return out;
  }

  async clientOf(target: ReachableServer): Promise<Client | undefined> {
    try {
      return await this.upstreams.client(target.upstream);
    } catch (error) {
      this.logger.warn({ server: target.server, err: error }, 'upstream unavailable for a proxied request');
      return undefined;
    }
  }

  /** Runs one upstream request on behalf of a downstream one, so that what the upstream sends back can find its way. */
  run<T>(state: ProxySessionState, server: string, extra: HandlerExtra, work: () => Promise<T>): Promise<T> {
    return this.inFlight.around(
      { state, server, sendRequest: extra.sendRequest, sendNotification: extra.sendNotification },
      work,
    );
  }

  /** Every page of an upstream list, bounded. */
  async allPages<T>(fetchPage: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string }>): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const result = await fetchPage(cursor);
      items.push(...result.items);
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return items;
  }
}

/** An upstream's protocol error, passed on without the SDK's "MCP error <code>:" prefix; anything else is our failure. */
export function toWireError(error: unknown, server: string): WireError {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'number' && error instanceof Error) {
    return new WireError(code, error.message.replace(/^MCP error -?\d+: /, ''), (error as { data?: unknown }).data);
  }
  return new WireError(-32603, `Internal error: the upstream ${server} is unavailable`);
}
