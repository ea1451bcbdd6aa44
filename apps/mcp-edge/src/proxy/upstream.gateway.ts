import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@estate/platform';
import type { CatalogReplica } from '../catalog/catalog.replica';
import { WireError } from '../mcp/wire-error';
import { failureRef, judgeUpstreamText, WITHHELD_TEXT, type UpstreamText } from '../upstream/upstream-answer.guard';
import type { UpstreamTextAction } from '../upstream/upstream.config';
import { textsIn, withholdIn } from '../upstream/upstream-text.tree';
import type { UpstreamPool } from '../upstream/upstream.pool';
import type { Principal } from '@estate/contracts';
import type { ProxyCaller } from './proxy.caller';
import type { InFlightRegistry } from './proxy-session.state';
import { reachableServers, resourceOwnership, type ReachableServer, type ResourceOwnership } from './upstream-access';

/** More pages than this from one upstream is a misbehaving upstream, not a big one. */
const MAX_PAGES = 50;

/** What the resource and prompt proxies share: who may reach which upstream, and how to ask it. */
export class UpstreamGateway {
  private ownership?: { changes: number; value: ResourceOwnership };

  constructor(
    private readonly replica: CatalogReplica,
    private readonly upstreams: UpstreamPool,
    readonly inFlight: InFlightRegistry,
    private readonly logger: Logger,
    readonly timeoutMs: number,
    private readonly textAction: UpstreamTextAction = 'refuse',
  ) {}

  /**
   * An upstream's failure as the caller sees it: the estate's own short text and a reference; the
   * upstream's code and message (which may carry a traceback or an address) go to the log only.
   * "Invalid params" keeps its code, so a client can still tell its own mistake from an outage.
   */
  failure(error: unknown, server: string, method: string): WireError {
    const ref = failureRef();
    const code = (error as { code?: unknown }).code;
    this.logger.warn({ server, method, ref, upstreamCode: code, err: error }, 'proxied upstream request failed');
    if (code === -32602) return new WireError(-32602, `Invalid params: the upstream server refused the request (ref ${ref})`);
    return new WireError(-32603, `The upstream server failed (ref ${ref})`);
  }

  /**
   * Applies the prompt-text rules to upstream text a model will read. Returns the paths to withhold
   * (under `strip`); throws under `refuse` when anything breaks a rule; only logs under `flag`.
   */
  checkTexts(server: string, method: string, texts: UpstreamText[]): Set<string> {
    const verdict = judgeUpstreamText(texts.filter((t) => t.text.length > 0), this.textAction);
    if (verdict.issues.length === 0) return verdict.withheld;
    const ref = failureRef();
    this.logger.warn({ server, method, ref, action: this.textAction, issues: verdict.issues }, 'upstream text breaks the prompt-text rules');
    if (verdict.refused) throw new WireError(-32603, `The upstream server's answer was withheld: it contained text aimed at the model (ref ${ref})`);
    return verdict.withheld;
  }

  /** For one listed item (a prompt, a resource): the paths to withhold, or 'drop' when it is refused; one bad item does not fail the list. */
  checkListed(server: string, method: string, texts: UpstreamText[]): Set<string> | 'drop' {
    try {
      return this.checkTexts(server, method, texts);
    } catch {
      return 'drop';
    }
  }

  /**
   * For text an upstream pushes (a log message, a progress message): the value with withheld text
   * replaced, or undefined when the action refuses it; a notification has no caller to answer, so
   * a refused one is not relayed.
   */
  checkPushed<T>(server: string, method: string, value: T, path = '$'): T | undefined {
    let hide: Set<string>;
    try {
      hide = this.checkTexts(server, method, textsIn(value, path));
    } catch {
      return undefined;
    }
    return hide.size === 0 ? value : (withholdIn(value, path, hide, WITHHELD_TEXT) as T);
  }

  reachable(caller: { readonly principal: Principal }): ReachableServer[] {
    return reachableServers(this.replica.all(), caller.principal);
  }

  /** Who owns a contested resource URI, judged on the whole catalog (see resourceOwnership), once per catalog change. */
  resourceOwnership(): ResourceOwnership {
    if (this.ownership?.changes !== this.replica.changes) this.ownership = { changes: this.replica.changes, value: resourceOwnership(this.replica.all()) };
    return this.ownership.value;
  }

  /** The reachable servers that declare a capability, each with its connected client; unreachable upstreams are skipped. */
  async withCapability(caller: { readonly principal: Principal }, capability: keyof ServerCapabilities): Promise<Array<{ target: ReachableServer; client: Client }>> {
    const out: Array<{ target: ReachableServer; client: Client }> = [];
    for (const target of this.reachable(caller)) {
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
  run<T>(caller: ProxyCaller, server: string, work: () => Promise<T>): Promise<T> {
    return this.inFlight.around(caller.inFlight(server), work);
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

/** The text at `path`, or the placeholder when that path is withheld. */
export function withheld(paths: Set<string>, path: string, text: string): string {
  return paths.has(path) ? WITHHELD_TEXT : text;
}
