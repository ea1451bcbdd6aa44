import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CompleteRequestSchema, GetPromptRequestSchema, ListPromptsRequestSchema, ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema, PromptListChangedNotificationSchema, ReadResourceRequestSchema, ResourceListChangedNotificationSchema,
  SetLevelRequestSchema, SubscribeRequestSchema, UnsubscribeRequestSchema,
  type CallToolResult, type LoggingLevel, type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '@estate/contracts';
import type { Logger } from '@estate/platform';
import type { CallRecorder } from '../calls/call.recorder';
import type { CatalogChange, CatalogReplica } from '../catalog/catalog.replica';
import type { InputAsker } from '../mcp/parked-input.relay';
import type { CallParams, ToolCallPipeline } from '../mcp/tool-call.pipeline';
import { WireError } from '../mcp/wire-error';
import type { EdgeSession } from '../sessions/edge-session';
import { rightsOf } from '../sessions/request-rights';
import type { ServerExtension } from '../sessions/session.manager';
import type { UpstreamTextAction } from '../upstream/upstream.config';
import type { UpstreamCallOptions, UpstreamPool } from '../upstream/upstream.pool';
import type { PrimitiveMethods } from '../mcp/primitive-methods.port';
import { PrimitiveListenStreams, PROMPTS_CHANGED, RESOURCES_CHANGED, type PrimitiveListChange } from './primitive-listen.streams';
import { PromptProxy } from './prompt.proxy';
import { sessionCaller } from './proxy.caller';
import { InFlightRegistry, ProxySessionState, severity, type HandlerExtra } from './proxy-session.state';
import { ResourceProxy } from './resource.proxy';
import { ResourceSubscriptions } from './resource.subscriptions';
import { statelessPrimitiveMethods } from './stateless-primitive.handlers';
import { reachMoved, usable } from './upstream-access';
import { UpstreamGateway } from './upstream.gateway';
import { UpstreamRequestRelay } from './upstream-request.relay';

export interface PrimitiveProxyDeps {
  replica: CatalogReplica;
  upstreams: UpstreamPool;
  pipeline: ToolCallPipeline;
  recorder: CallRecorder;
  logger: Logger;
  timeoutMs: number;
  /** What to do with upstream prompt and resource text that breaks the prompt-text rules. */
  textAction?: UpstreamTextAction;
  clock?: () => number;
}

/** Lists come back whole; a cursor can only be one we never issued. */
function refuseCursor(params: { cursor?: string } | undefined): void {
  if (params?.cursor !== undefined) throw new WireError(-32602, 'Invalid params: the cursor is not one this server issued');
}

/**
 * Everything the edge proxies besides tools: resources, prompts, completions and logging, plus
 * progress, log messages, sampling and elicitation on their way back. Authorization is the tool
 * rule carried over: a session reaches an upstream's resources and prompts only while its
 * principal may see a usable tool of that upstream (see upstream-access.ts).
 */
export class PrimitiveProxyExtension implements ServerExtension {
  readonly capabilities: ServerCapabilities = { resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {}, logging: {} };
  private readonly states = new Map<string, ProxySessionState>();
  private readonly inFlight = new InFlightRegistry();
  private readonly gateway: UpstreamGateway;
  private readonly resources: ResourceProxy;
  private readonly prompts: PromptProxy;
  private readonly subscriptions: ResourceSubscriptions;
  /** The same proxies for 2026-07-28 requests (the dispatcher's methods) and their listen streams. */
  readonly stateless: { readonly methods: PrimitiveMethods; readonly listen: PrimitiveListenStreams };

  constructor(private readonly deps: PrimitiveProxyDeps) {
    this.gateway = new UpstreamGateway(deps.replica, deps.upstreams, this.inFlight, deps.logger, deps.timeoutMs, deps.textAction);
    this.subscriptions = new ResourceSubscriptions(deps.logger);
    this.resources = new ResourceProxy(this.gateway, this.subscriptions, deps.logger);
    this.prompts = new PromptProxy(this.gateway, deps.logger);
    const listen = new PrimitiveListenStreams(deps.replica, this.gateway, this.resources, this.subscriptions, deps.logger);
    this.stateless = { methods: statelessPrimitiveMethods(this.resources, this.prompts), listen };
    const relay = new UpstreamRequestRelay(deps.replica, this.inFlight, deps.recorder, deps.logger, this.gateway);
    deps.upstreams.onClient((client, upstream) => {
      relay.setup(client, upstream);
      this.subscriptions.setup(client, upstream);
      // One handler per method and client: sessions and 2026-07-28 listen streams both hear it from here.
      client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => this.listChanged(upstream.server, RESOURCES_CHANGED));
      client.setNotificationHandler(PromptListChangedNotificationSchema, async () => this.listChanged(upstream.server, PROMPTS_CHANGED));
    });
    deps.replica.onChange((changes) => this.reachChanged(changes));
  }

  /**
   * A catalog change that took a server into or out of a session's reach changes what its
   * resources/list and prompts/list answer: the session hears both list_changed, as a listen
   * stream does (reachMoved is the one rule), while the rights of its latest request hold.
   */
  private reachChanged(changes: readonly CatalogChange[]): void {
    if (this.states.size === 0) return;
    const moved = reachMoved(changes, this.deps.replica.all());
    const now = (this.deps.clock ?? Date.now)();
    for (const { session, server } of this.states.values()) {
      if (session.lifecycle.phase !== 'operating' || !session.mayNotify(now) || !moved(session.principal)) continue;
      for (const method of [RESOURCES_CHANGED, PROMPTS_CHANGED]) {
        void server.notification({ method }).catch((error: unknown) => this.deps.logger.debug({ err: error, method }, 'could not send a list change'));
      }
    }
  }

  /**
   * An upstream's resource or prompt list changed: told to every session (and listen stream) whose
   * principal may reach that server, by the rights of its latest request, while those rights hold.
   */
  private listChanged(server: string, method: PrimitiveListChange): void {
    this.stateless.listen.upstreamChanged(server, method);
    const now = (this.deps.clock ?? Date.now)();
    for (const state of this.states.values()) {
      const { session } = state;
      if (session.lifecycle.phase !== 'operating' || !session.mayNotify(now)) continue;
      if (!this.gateway.reachable(state.session).some((s) => s.server === server)) continue;
      void state.server.notification({ method }).catch((error: unknown) => this.deps.logger.debug({ err: error, server, method }, 'could not relay a list change'));
    }
  }

  register(server: Server, session: EdgeSession): void {
    const state = new ProxySessionState(session, server);
    this.states.set(session.id, state);
    const closed = server.onclose;
    server.onclose = () => {
      this.states.delete(session.id);
      this.subscriptions.forget(state, this.deps.timeoutMs);
      closed?.();
    };
    server.setRequestHandler(ListResourcesRequestSchema, async (r) => (refuseCursor(r.params), this.resources.list(sessionCaller(state))));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async (r) => (refuseCursor(r.params), this.resources.templates(sessionCaller(state))));
    server.setRequestHandler(ReadResourceRequestSchema, async (r, extra) => this.resources.read(sessionCaller(state, extra), r.params.uri));
    server.setRequestHandler(SubscribeRequestSchema, async (r) => this.resources.subscribe(state, r.params.uri));
    server.setRequestHandler(UnsubscribeRequestSchema, async (r) => this.resources.unsubscribe(state, r.params.uri));
    server.setRequestHandler(ListPromptsRequestSchema, async (r) => (refuseCursor(r.params), this.prompts.list(sessionCaller(state))));
    server.setRequestHandler(GetPromptRequestSchema, async (r, extra) => this.prompts.get(sessionCaller(state, extra), r.params));
    server.setRequestHandler(CompleteRequestSchema, async (r, extra) => this.prompts.complete(sessionCaller(state, extra), r.params));
    server.setRequestHandler(SetLevelRequestSchema, async (r) => this.setLevel(state, r.params.level));
  }

  /**
   * A session's tools/call (the session manager's one handler runs it through here): the pipeline
   * call, plus the progress mapping and the in-flight record that upstream requests are attributed to.
   */
  async callTool(session: EdgeSession, params: CallParams, extra: HandlerExtra): Promise<CallToolResult> {
    const state = this.states.get(session.id);
    if (!state) return this.deps.pipeline.call(session, params, extra);
    const token = (params._meta as { progressToken?: string | number } | undefined)?.progressToken;
    const options: UpstreamCallOptions = {};
    if (token !== undefined) {
      // The SDK client sends its own token upstream and hands us each update; the client's token goes back down.
      // A progress message is upstream text the model may read: the prompt-text rules apply.
      const server = this.deps.replica.get(params.name)?.upstream.server ?? params.name;
      options.onprogress = (progress) => {
        const checked = this.gateway.checkPushed(server, 'notifications/progress', progress);
        if (checked) void extra.sendNotification({ method: 'notifications/progress', params: { ...checked, progressToken: token } }).catch(() => undefined);
      };
    }
    const run = () => this.deps.pipeline.call(state.session, params, extra, options);
    const entry = this.deps.replica.get(params.name);
    if (!entry || !usable(entry, rightsOf(state.session, extra))) return run();
    const call = {
      state, principal: state.session.principal, sessionId: state.session.id, server: entry.upstream.server, tool: params.name,
      sendRequest: extra.sendRequest, sendNotification: extra.sendNotification,
    };
    return this.inFlight.around(call, run);
  }

  /**
   * A 2026-07-28 tools/call runs inside this so that an upstream's sampling or elicitation request
   * during it is attributed to that request, and put to its agent through `asker`, instead of to a
   * session that happens to have a call to the same server in flight.
   */
  async aroundStatelessCall<T>(principal: Principal, tool: unknown, run: () => Promise<T>, asker?: InputAsker): Promise<T> {
    const entry = typeof tool === 'string' ? this.deps.replica.get(tool) : undefined;
    if (!entry || !usable(entry, principal)) return run();
    return this.inFlight.around({ principal, server: entry.upstream.server, tool: tool as string, ...(asker ? { asker } : {}) }, run);
  }

  /**
   * The session's level filters what it is sent; each reachable upstream that logs is asked for
   * the most verbose level any open session wants, since its connection is shared.
   */
  private async setLevel(state: ProxySessionState, level: LoggingLevel): Promise<Record<string, never>> {
    state.logLevel = level;
    const levels = [...this.states.values()].flatMap((s) => (s.logLevel === undefined ? [] : [s.logLevel]));
    const verbose = levels.reduce((a, b) => (severity(b) < severity(a) ? b : a), level);
    for (const { target, client } of await this.gateway.withCapability(sessionCaller(state), 'logging')) {
      await client.setLoggingLevel(verbose, { timeout: this.deps.timeoutMs }).catch((error: unknown) =>
        this.deps.logger.warn({ server: target.server, err: error }, 'could not set the upstream log level'));
    }
    return {};
  }
}
