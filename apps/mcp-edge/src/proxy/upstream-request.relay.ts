import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema, CreateMessageResultSchema, ElicitRequestSchema, ElicitResultSchema, LoggingMessageNotificationSchema,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import type { CatalogUpstream, UpstreamRequestMethod, UpstreamRequestRefusalReason } from '@estate/events';
import type { Logger } from '@estate/platform';
import { relayedElicitation } from '@estate/protocol';
import type { CallRecorder } from '../calls/call.recorder';
import type { CatalogReplica } from '../catalog/catalog.replica';
import type { InputAsker } from '../mcp/parked-input.relay';
import { WireError } from '../mcp/wire-error';
import { currentUpstream } from './upstream-access';
import type { InFlightCall, InFlightRegistry } from './proxy-session.state';
import type { UpstreamGateway } from './upstream.gateway';

/** The revision whose requests have no session and no stream for the server to ask on. */
const STATELESS_REVISION = '2026-07-28';

/** What a refused upstream request gets back: the spec's "user rejected" shape, with our reason. */
const REFUSED_CODE = -1;

interface Attribution {
  call?: InFlightCall;
  reason?: UpstreamRequestRefusalReason;
  detail?: string;
}

/**
 * What upstream servers send back through the edge. Log messages, sampling and elicitation
 * requests all belong to the one caller whose request to that server is in flight: a log message
 * goes to that caller's session (on its call's stream, filtered by the session's level), and
 * one that arrives when no caller or several are in flight, on the shared upstream connection, is
 * not relayed to anyone (only the edge's debug log keeps it), since it may be another tenant's.
 * Sampling and elicitation requests are relayed only when the server's registration allows them
 * and the caller's client declared the capability: a session is asked on its stream, a
 * 2026-07-28 request through its input_required answer (mcp/parked-input.relay.ts); with no one
 * caller they are refused. Every relay and every refusal is published to estate.calls.
 */
export class UpstreamRequestRelay {
  constructor(
    private readonly replica: CatalogReplica,
    private readonly inFlight: InFlightRegistry,
    private readonly recorder: CallRecorder,
    private readonly logger: Logger,
    private readonly gateway: Pick<UpstreamGateway, 'checkPushed'>,
  ) {}

  /** Installs the relays on a new upstream client (UpstreamPool.onClient). */
  setup(client: Client, upstream: CatalogUpstream): void {
    // Always declared, so that every attempt reaches the edge and a refusal is audited here.
    client.registerCapabilities({ sampling: {}, elicitation: {} });
    client.setRequestHandler(CreateMessageRequestSchema, async (request) =>
      CreateMessageResultSchema.parse(await this.relay(upstream, 'sampling/createMessage', request.params)),
    );
    client.setRequestHandler(ElicitRequestSchema, async (request) =>
      ElicitResultSchema.parse(await this.relay(upstream, 'elicitation/create', request.params)),
    );
    client.setNotificationHandler(LoggingMessageNotificationSchema, async (notification) => this.log(upstream.server, notification));
  }

  private log(server: string, notification: LoggingMessageNotification): void {
    // A log message reaches the model like prompt text: checked once, then relayed.
    const params = this.gateway.checkPushed(server, 'notifications/message', notification.params);
    if (!params) return;
    const found = this.callerOf(server, 'notifications/message');
    const state = found.call?.state;
    if (!found.call || !state) {
      // No one caller (or a 2026-07-28 request, whose revision offers no logging): kept here only.
      const reason = found.reason ?? 'stateless_caller';
      this.logger.debug({ server, reason, logLevel: params.level, upstreamLogger: params.logger, data: params.data }, 'upstream log message not relayed');
      return;
    }
    if (!state.wantsLog(params.level) || state.session.lifecycle.phase !== 'operating') return;
    const message = { method: 'notifications/message' as const, params };
    // On the call's own stream when it has one; otherwise the session's standalone stream.
    const { call } = found;
    const sent = call.sendNotification ? call.sendNotification(message) : state.server.notification(message);
    void sent.catch((error: unknown) => this.logger.debug({ err: error, server }, 'could not relay a log message'));
  }

  private async relay(upstream: CatalogUpstream, method: UpstreamRequestMethod, params: Record<string, unknown>): Promise<unknown> {
    const server = upstream.server;
    const registration = currentUpstream(this.replica.all(), server) ?? upstream;
    const allowed = method === 'sampling/createMessage' ? registration.allowSampling : registration.allowElicitation;
    const found = this.attribute(server, method);
    if (!allowed) return this.refuse(server, method, found.call, 'not_allowed', `${server} is not registered for ${method}`);
    if (found.reason || !found.call) return this.refuse(server, method, found.call, found.reason ?? 'no_call_in_flight', found.detail ?? '');
    const { call } = found;
    if (call.asker) return this.askAgent(server, method, params, call, call.asker);
    if (!call.sendRequest) return this.refuse(server, method, call, 'client_not_capable', 'the caller has no way to be asked during its call');
    const resultSchema = method === 'sampling/createMessage' ? CreateMessageResultSchema : ElicitResultSchema;
    // As the caller's revision has it: a 2025-06-18 client is asked without `mode`, and cannot be sent to a URL.
    const shaped = method === 'elicitation/create' && call.state ? call.state.session.revision.elicitation(params) : params;
    if (!shaped) return this.refuse(server, method, call, 'client_not_capable', `the client's protocol revision ${call.state?.session.revision.version} has no URL elicitation`);
    try {
      const result = await call.sendRequest({ method, params: shaped } as Parameters<NonNullable<InFlightCall['sendRequest']>>[0], resultSchema);
      this.record(call, server, method, 'answered');
      return result;
    } catch (error) {
      this.record(call, server, method, 'failed');
      const code = (error as { code?: unknown }).code;
      throw new WireError(typeof code === 'number' ? code : -32603, error instanceof Error ? error.message.replace(/^MCP error -?\d+: /, '') : 'the client did not answer');
    }
  }

  /**
   * Puts the question to a 2026-07-28 agent. One that did not declare what it needs has its
   * request answered -32021 at once, as the revision says, and the upstream is refused.
   */
  private async askAgent(server: string, method: UpstreamRequestMethod, params: Record<string, unknown>, call: InFlightCall, asker: InputAsker): Promise<unknown> {
    const checked = method === 'elicitation/create' ? relayedElicitation(params) : { ok: true as const, request: { method, params } };
    if (!checked.ok) return this.refuse(server, method, call, 'not_allowed', `${server}'s ${method} cannot be passed on: ${checked.reason}`);
    const request = { method, params: { ...checked.request.params } };
    const missing = asker.missing(request);
    if (missing) {
      asker.abandon(new WireError(missing.code, missing.message, missing.data));
      return this.refuse(server, method, call, 'client_not_capable', `the ${STATELESS_REVISION} request did not declare ${method === 'sampling/createMessage' ? 'sampling' : 'elicitation'}`);
    }
    try {
      const result = await asker.ask(request);
      this.record(call, server, method, 'answered');
      return result;
    } catch (error) {
      this.record(call, server, method, 'failed');
      throw error instanceof WireError ? error : new WireError(-32603, 'the agent did not answer');
    }
  }

  /**
   * The one caller whose requests to `server` are in flight (each 2026-07-28 request is a caller of
   * its own; a session's calls are one caller), or why there is none.
   */
  private callerOf(server: string, what: string): Attribution {
    const inFlight = this.inFlight.of(server);
    // A parked call's upstream is blocked on the questions its agent holds, so a new message
    // comes from one of the others; only when every call is parked may it be a parked one's.
    const running = inFlight.filter((c) => !c.asker?.parked());
    const calls = running.length > 0 ? running : inFlight;
    const callers = new Set<unknown>(calls.map((c) => c.state ?? c));
    if (callers.size === 0) return { reason: 'no_call_in_flight', detail: `${server} sent ${what} while no request of a client to it was in flight` };
    // How many others were calling is no business of the upstream (which may echo it to an agent).
    if (callers.size > 1) return { reason: 'ambiguous_caller', detail: `${server} sent ${what} while requests of more than one caller to it were in flight` };
    return { call: calls[0] };
  }

  private attribute(server: string, method: UpstreamRequestMethod): Attribution {
    const found = this.callerOf(server, method);
    if (!found.call) return found;
    const { call } = found;
    if (!call.state) {
      if (call.asker) return { call };
      return { call, reason: 'client_not_capable', detail: `a ${STATELESS_REVISION} request cannot be asked for ${method} during its call` };
    }
    const capabilities = call.state.server.getClientCapabilities();
    const capable = method === 'sampling/createMessage' ? capabilities?.sampling : capabilities?.elicitation;
    if (!capable) return { call, reason: 'client_not_capable', detail: `the client did not declare ${method === 'sampling/createMessage' ? 'sampling' : 'elicitation'}` };
    const { revision } = call.state.session;
    if (!revision.hasRequest(method)) return { call, reason: 'client_not_capable', detail: `the client's protocol revision ${revision.version} has no ${method}` };
    return { call };
  }

  private refuse(server: string, method: UpstreamRequestMethod, call: InFlightCall | undefined, reason: UpstreamRequestRefusalReason, detail: string): never {
    const principal = call?.principal;
    this.recorder.record({
      type: 'UpstreamRequestRefused',
      version: 1,
      data: {
        principal: principal?.id ?? `upstream:${server}`, tenant: principal?.tenant, sessionId: call?.sessionId,
        server, method, tool: call?.tool, reason, detail,
      },
    }, call?.sessionId);
    this.logger.info({ server, method, reason }, 'refused an upstream request');
    throw new WireError(REFUSED_CODE, `Refused by the estate: ${detail}`);
  }

  private record(call: InFlightCall, server: string, method: UpstreamRequestMethod, outcome: 'answered' | 'failed'): void {
    const { principal, sessionId } = call;
    this.recorder.record({
      type: 'UpstreamRequestRelayed',
      version: 1,
      data: { principal: principal.id, tenant: principal.tenant, sessionId, server, method, tool: call.tool, outcome },
    }, sessionId);
  }
}
