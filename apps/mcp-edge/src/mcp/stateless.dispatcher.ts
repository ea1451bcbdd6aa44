import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { argumentDepthError, type Principal } from '@estate/contracts';
import {
  ALL_PROTOCOL_VERSIONS, checkParamHeaders, completeResult, discoverResult, isCacheableMethod, JSON_RPC_ERROR, paramHeadersOf,
  parseRetryInputs, perPrincipalCacheHints, type JsonRpcId, type JsonRpcRequest, type RequestMeta,
} from '@estate/protocol';
import { resolveForPrincipal, withSunsetsApplied } from '@estate/catalog';
import type { Logger } from '@estate/platform';
import type { CatalogReplica } from '../catalog/catalog.replica';
import { InputRequiredSignal } from './input-required.signal';
import { ParkedInputRelay, type InputAsker } from './parked-input.relay';
import type { PrimitiveMethods } from './primitive-methods.port';
import type { RequestStateSealer } from './request-state.sealer';
import { StatelessCaller } from './stateless.caller';
import { listToolPage } from './tool-list';
import { pinsFromMeta, type CallParams, type ToolCallPipeline } from './tool-call.pipeline';
import { WireError } from './wire-error';

/**
 * A resource's contents are the upstream's, whose freshness a session-era upstream never states:
 * a 2026 client re-reads each time, and hears of changes on subscriptions/listen.
 */
const READ_TTL_MS = 0;

/** One self-contained request and everything known about who sent it. */
export interface DispatchContext {
  readonly principal: Principal;
  readonly meta: RequestMeta;
  readonly headers: IncomingHttpHeaders;
  readonly signal?: AbortSignal;
  /** Where progress of a tools/call goes when the request named a progressToken. */
  readonly onprogress?: (progress: { progress: number; total?: number }) => void;
}

/** What a handler answers: a result body (made final and cache-marked by the dispatcher), or a ready input_required result. */
type Handler = (request: JsonRpcRequest, context: DispatchContext) => Promise<Record<string, unknown>>;

export type DispatchOutcome =
  | { readonly ok: true; readonly id: JsonRpcId; readonly result: Record<string, unknown> }
  | { readonly ok: false; readonly id: JsonRpcId; readonly error: { code: number; message: string; data?: unknown } };

export interface StatelessDispatcherDeps {
  replica: CatalogReplica;
  pipeline: ToolCallPipeline;
  sealer: RequestStateSealer;
  serverInfo: { name: string; version: string };
  /** How long a client may reuse a list or discover answer (it also hears list_changed on subscriptions/listen). */
  listTtlMs: number;
  /** How long a call whose upstream asked the agent something waits for the retry with the answers. */
  inputParkTtlMs: number;
  logger: Logger;
  /**
   * Runs a tools/call so that an upstream's request during it is attributed to this caller (the
   * proxy's in-flight record) and put to the agent through `asker`; without it, such a request
   * finds no caller and is refused.
   */
  aroundCall?: <T>(principal: Principal, tool: unknown, run: () => Promise<T>, asker?: InputAsker) => Promise<T>;
  /** Resources, prompts and completions (the proxy's); without them only tools are served. */
  primitives?: PrimitiveMethods;
}

/**
 * The edge's own dispatcher for requests that carry everything they need: a method table, no SDK
 * server, no session. Handlers get the principal and the request's `_meta` as their context, so
 * the session eras could hand their requests to the same table once a session supplies that
 * context (issue 10's one dispatcher). subscriptions/listen is a stream, not an answer, and is
 * served by the HTTP layer beside this.
 */
export class StatelessDispatcher {
  private readonly methods = new Map<string, Handler>();
  private readonly inputs: ParkedInputRelay;

  constructor(private readonly deps: StatelessDispatcherDeps) {
    this.inputs = new ParkedInputRelay(deps.sealer, deps.inputParkTtlMs, deps.serverInfo);
    this.methods.set('server/discover', async () => this.discover());
    this.methods.set('tools/list', async (request, context) => this.listTools(request, context));
    this.methods.set('tools/call', async (request, context) => this.callTool(request, context));
    for (const [method, serve] of deps.primitives?.methods ?? []) {
      this.methods.set(method, async (request, context) => serve(request.params ?? {}, context.principal, context.signal));
    }
  }

  /** Whether a method is answered here; the others of the revision are refused with -32601. */
  serves(method: string): boolean {
    return this.methods.has(method);
  }

  async dispatch(request: JsonRpcRequest, context: DispatchContext): Promise<DispatchOutcome> {
    const handler = this.methods.get(request.method);
    if (!handler) return { ok: false, id: request.id, error: { code: JSON_RPC_ERROR.MethodNotFound, message: `Method not found: ${request.method}` } };
    try {
      const body = await handler(request, context);
      const cache = isCacheableMethod(request.method) ? perPrincipalCacheHints(request.method === 'resources/read' ? READ_TTL_MS : this.deps.listTtlMs) : undefined;
      const result = request.method === 'server/discover' ? body : completeResult(request.method, body, { serverInfo: this.deps.serverInfo, cache });
      return { ok: true, id: request.id, result };
    } catch (error) {
      if (error instanceof InputRequiredSignal) return { ok: true, id: request.id, result: error.result };
      if (error instanceof WireError) return { ok: false, id: request.id, error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) } };
      this.deps.logger.error({ err: error, method: request.method }, 'stateless request failed inside the edge');
      return { ok: false, id: request.id, error: { code: JSON_RPC_ERROR.InternalError, message: 'Internal error' } };
    }
  }

  /** Every caller is told the same: what each may list is what varies, and the lists say so by their cacheScope. */
  private discover(): Record<string, unknown> {
    return discoverResult({
      supportedVersions: ALL_PROTOCOL_VERSIONS,
      capabilities: { tools: { listChanged: true }, ...this.deps.primitives?.capabilities },
      serverInfo: this.deps.serverInfo,
      cache: perPrincipalCacheHints(this.deps.listTtlMs),
    });
  }

  private async listTools(request: JsonRpcRequest, context: DispatchContext): Promise<Record<string, unknown>> {
    const params = request.params ?? {};
    const cursor = params['cursor'];
    if (cursor !== undefined && typeof cursor !== 'string') throw new WireError(JSON_RPC_ERROR.InvalidParams, 'Invalid params: params.cursor: must be a string');
    const page = listToolPage(this.deps.replica.all(), context.principal, pinsFromMeta(params['_meta']), cursor);
    return { ...page };
  }

  /**
   * A retry whose state names a parked call resumes it; anything else runs the pipeline, and an
   * upstream's question during it turns the answer into input_required (parked-input.relay.ts).
   */
  private async callTool(request: JsonRpcRequest, context: DispatchContext): Promise<Record<string, unknown>> {
    const params = (request.params ?? {}) as unknown as CallParams & Record<string, unknown>;
    const inputs = parseRetryInputs(params);
    if (!inputs.ok) throw new WireError(inputs.error.code, inputs.error.message);
    const pins = pinsFromMeta(params._meta);
    this.checkParamHeaders(params, context, pins);
    const target = { principal: context.principal, tool: params.name, args: params.arguments ?? {} };
    // Resuming hashes the arguments with a recursive walk; arguments past the depth bound were
    // never parked (the pipeline refuses them), so they go straight to the pipeline's answer.
    const resumable = inputs.inputs.requestState !== undefined && argumentDepthError(target.args) === null;
    const resumed = resumable ? await this.inputs.resume(target, inputs.inputs) : undefined;
    if (resumed) return resumed as unknown as Record<string, unknown>;
    const caller = new StatelessCaller({
      id: `req-${randomUUID()}`, principal: context.principal, meta: context.meta, inputs: inputs.inputs, pins, sealer: this.deps.sealer, serverInfo: this.deps.serverInfo,
    });
    const { inputResponses: _responses, requestState: _state, ...callParams } = params;
    // Only the numbers are relayed: an upstream's progress message is text a model may read, and
    // the prompt-text rules for it live with the session proxy.
    const onprogress = context.onprogress;
    const options = onprogress ? { onprogress: (p: { progress: number; total?: number }) => onprogress({ progress: p.progress, ...(p.total === undefined ? {} : { total: p.total }) }) } : {};
    const run = () => this.deps.pipeline.call(caller, callParams, { requestId: request.id, signal: context.signal, requestInfo: { headers: context.headers } }, options);
    const around = this.deps.aroundCall;
    const result = await this.inputs.start(target, context.meta.clientCapabilities, (asker) => (around ? around(context.principal, params.name, run, asker) : run()));
    return result as unknown as Record<string, unknown>;
  }

  /** Withdraws the questions of every parked call (the edge is stopping). */
  close(): void {
    this.inputs.closeAll();
  }

  /**
   * `Mcp-Param-*` headers a tool's schema asks for must agree with its arguments (-32020). Only a
   * tool the caller may use is looked at: for any other the pipeline gives its one answer.
   */
  private checkParamHeaders(params: CallParams, context: DispatchContext, pins: Record<string, string>): void {
    if (typeof params.name !== 'string') return;
    const entry = this.deps.replica.get(params.name);
    const version = entry && resolveForPrincipal(withSunsetsApplied(entry, Date.now()), context.principal, pins[params.name]);
    if (!version) return;
    const declared = paramHeadersOf(version.spec.inputSchema);
    if (!declared.ok || declared.headers.length === 0) return;
    const problem = checkParamHeaders(context.headers, declared.headers, params.arguments ?? {});
    if (problem) throw new WireError(problem.code, problem.message);
  }
}
