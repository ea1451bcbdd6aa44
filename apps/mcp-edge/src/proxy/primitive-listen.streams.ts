import type { Logger } from '@estate/platform';
import { acknowledgedFilter, invalidParamsAt, subscriptionNotification, type JsonRpcErrorObject, type SubscriptionFilter } from '@estate/protocol';
import type { CatalogChange, CatalogReplica } from '../catalog/catalog.replica';
import type { ListenStream } from '../mcp/list-change.listeners';
import { requestCaller } from './proxy.caller';
import type { ResourceProxy } from './resource.proxy';
import type { ResourceSubscriptions, ResourceWatcher } from './resource.subscriptions';
import type { UpstreamGateway } from './upstream.gateway';
import { reachMoved } from './upstream-access';

/** More URIs than this on one stream is refused: each may cost an upstream subscription. */
export const MAX_WATCHED_URIS = 100;

export const RESOURCES_CHANGED = 'notifications/resources/list_changed';
export const PROMPTS_CHANGED = 'notifications/prompts/list_changed';
export type PrimitiveListChange = typeof RESOURCES_CHANGED | typeof PROMPTS_CHANGED;

/** One listen stream as seen here: which servers its principal reached when last looked, and which server owns each watched URI. */
interface Watch extends ResourceWatcher {
  readonly stream: ListenStream;
  readonly owners: Map<string, string>;
  started: boolean;
}

/** A stream that watches nothing of resources or prompts costs nothing here. */
function wantsPrimitives(filter: SubscriptionFilter): boolean {
  return filter.resourcesListChanged === true || filter.promptsListChanged === true || (filter.resourceSubscriptions?.length ?? 0) > 0;
}

/**
 * The resource and prompt side of 2026-07-28 subscriptions/listen, per principal. A stream hears
 * resources/ and prompts/list_changed when the servers its principal may reach change (a tool of
 * a server became usable or stopped being so) or when a server it may reach says its list
 * changed; and resources/updated for the URIs it watches, while it may still reach their server.
 * Every URI asked for is acknowledged, reachable or not, so that the acknowledgement does not
 * tell a hidden resource from a missing one; only those the principal may reach are watched upstream.
 */
export class PrimitiveListenStreams {
  private readonly watches = new Set<Watch>();

  constructor(
    private readonly replica: CatalogReplica,
    private readonly gateway: UpstreamGateway,
    private readonly resources: ResourceProxy,
    private readonly subscriptions: ResourceSubscriptions,
    private readonly logger: Logger,
  ) {
    replica.onChange((changes) => this.reachChanged(changes));
  }

  /** What the edge agrees to send on a stream: every list change it knows of, and every URI asked for (see the class comment). */
  honoured(requested: SubscriptionFilter): SubscriptionFilter {
    return acknowledgedFilter(requested, { flags: ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'], canWatch: () => true });
  }

  /** The refusal for a filter this edge will not take on, if any (checked before the stream opens). */
  refusal(filter: SubscriptionFilter): JsonRpcErrorObject | undefined {
    const count = filter.resourceSubscriptions?.length ?? 0;
    if (count <= MAX_WATCHED_URIS) return undefined;
    return invalidParamsAt('params.notifications.resourceSubscriptions', `at most ${MAX_WATCHED_URIS} URIs per stream, got ${count}`);
  }

  /**
   * Starts watching for a stream (its filter already acknowledged): the URIs are attributed and
   * subscribed upstream first, so a change after the acknowledgement is not missed. Nothing is
   * sent on the stream until `start` (the acknowledgement must come first). `stop` ends the watch.
   */
  async open(stream: ListenStream): Promise<{ start(): void; stop(): void }> {
    if (!wantsPrimitives(stream.filter)) return { start: () => undefined, stop: () => undefined };
    const watch: Watch = {
      stream, owners: new Map(), started: false,
      resourceUpdated: (server, uri) => this.updated(watch, server, uri),
    };
    this.watches.add(watch);
    await this.watchUris(watch);
    return {
      start: () => void (watch.started = true),
      stop: () => {
        this.watches.delete(watch);
        this.subscriptions.forget(watch, this.gateway.timeoutMs);
      },
    };
  }

  /** Attributes each URI as a request of this principal would (its lists), and subscribes upstream where the owner offers it. */
  private async watchUris(watch: Watch): Promise<void> {
    const uris = watch.stream.filter.resourceSubscriptions ?? [];
    if (uris.length === 0) return;
    const caller = requestCaller(watch.stream.principal);
    await this.resources.list(caller);
    await this.resources.templates(caller);
    const reachable = this.gateway.reachable(caller);
    for (const uri of uris) {
      const target = reachable.find((s) => s.server === caller.attribution.serverOf(uri));
      const client = target && (await this.gateway.clientOf(target));
      if (!target || !client?.getServerCapabilities()?.resources?.subscribe) continue;
      try {
        await this.subscriptions.subscribe(watch, target.server, client, uri, this.gateway.timeoutMs);
        watch.owners.set(uri, target.server);
      } catch (error) {
        this.logger.warn({ server: target.server, uri, err: error }, 'could not subscribe upstream for a listen stream');
      }
    }
  }

  private updated(watch: Watch, server: string, uri: string): void {
    if (!watch.started || watch.owners.get(uri) !== server || !this.mayReach(watch, server)) return;
    this.send(watch, 'notifications/resources/updated', { uri });
  }

  /** An upstream said its resource or prompt list changed (the proxy extension hears it for sessions and streams alike). */
  upstreamChanged(server: string, method: PrimitiveListChange): void {
    for (const watch of this.watches) if (watch.started && this.mayReach(watch, server)) this.send(watch, method);
  }

  /**
   * A catalog change: streams whose principal now reaches other servers hear that both lists may
   * differ (the rule is upstream-access's reachMoved, the same for sessions).
   */
  private reachChanged(changes: readonly CatalogChange[]): void {
    if (this.watches.size === 0) return;
    const moved = reachMoved(changes, this.replica.all());
    for (const watch of this.watches) {
      if (!watch.started || (!watch.stream.filter.resourcesListChanged && !watch.stream.filter.promptsListChanged)) continue;
      if (!moved(watch.stream.principal)) continue;
      this.send(watch, RESOURCES_CHANGED);
      this.send(watch, PROMPTS_CHANGED);
    }
  }

  private mayReach(watch: Watch, server: string): boolean {
    return this.gateway.reachable(watch.stream).some((s) => s.server === server);
  }

  /** Sends only what the stream's filter admits (subscriptionNotification decides). */
  private send(watch: Watch, method: string, params: Record<string, unknown> = {}): void {
    const message = subscriptionNotification(watch.stream.id, watch.stream.filter, method, params);
    if (message) watch.stream.send(message);
  }
}
