import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { CallToolResult, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { resolveForPrincipal, withSunsetsApplied } from '@estate/catalog';
import { argumentDepthError, isVisible, repair, validate, type JsonSchema, type Principal, type RepairOutcome, type ValidationError } from '@estate/contracts';
import type { CatalogEntry, CatalogVersion } from '@estate/events';
import { withCorrelation, withSpan, type LineLogger, type Logger } from '@estate/platform';
import type { CatalogReplica } from '../catalog/catalog.replica';
import type { CallRecorder } from '../calls/call.recorder';
import type { CallPolicy } from '../policy/call.policy';
import type { CallerContext } from './caller.context';
import { rightsOf } from '../sessions/request-rights';
import { validationLines, toolError } from './call-results';
import { CallRecords } from './call.records';
import { noticeDeprecation, type SendNotification } from './deprecation.notice';
import { PolicyStep } from './policy.step';
import { UpstreamStep, type OutputDriftListener } from './upstream.step';
import { unknownTool, WireError } from './wire-error';
import { InputRequiredSignal } from './input-required.signal';
import { mcpRequestLogger, requestCorrelationId, type RequestOrigin } from './request.logger';
import type { UpstreamCallOptions, UpstreamPool } from '../upstream/upstream.pool';
import { signalCancellation, type CallCancellation } from '../upstream/call.cancellation';

export interface CallParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** What the SDK hands a request handler that the pipeline uses. */
export interface CallContext extends RequestOrigin {
  signal?: AbortSignal;
  /** The session fast path's cancellation, read instead of `signal`, which it makes only when read (upstream/call.cancellation.ts). */
  cancellation?: CallCancellation;
  requestId?: RequestId;
  /** The rights this request's token carries (sessions/request-rights.ts). */
  authInfo?: AuthInfo;
  /** Sends a notification tied to this request (a deprecation warning travels with its call). */
  sendNotification?: SendNotification;
}

/** Sessions on these revisions get argument errors as JSON-RPC -32602; newer ones as tool errors (SEP-1303). */
const PROTOCOL_ERROR_VERSIONS = new Set(['2024-11-05', '2025-03-26', '2025-06-18']);
/** No published tool name is longer (the registry stops at 128); a longer one is bounded at the door. */
const MAX_TOOL_NAME = 256;
/** Stands in for a missing tool so that "missing" and "not yours" run the same checks. */
const NO_ENTRY: CatalogEntry = { name: '', upstream: { server: '', transport: 'streamable-http', allowSampling: false, allowElicitation: false }, versions: [], position: 0 };

export function pinsFromMeta(meta: unknown): Record<string, string> {
  const pins = (meta as Record<string, unknown> | undefined)?.['io.estate/pins'];
  if (typeof pins !== 'object' || pins === null || Array.isArray(pins)) return {};
  return Object.fromEntries(Object.entries(pins).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
}

export interface PipelineOptions {
  timeoutMs: number;
  logger: Logger;
  clock?: () => number;
}

/**
 * tools/call, in order: the principal's rate budget → params → discoverability → pin → argument depth → repair →
 * validation → policy → upstream, and a deprecated version's answer marked. Nothing refused reaches the upstream, and every refusal is
 * recorded. Discoverability is judged by the rights of the token this request carries.
 */
export class ToolCallPipeline {
  private readonly records: CallRecords;
  private readonly policyStep: PolicyStep;
  private readonly upstreamStep: UpstreamStep;
  private readonly clock: () => number;

  constructor(private readonly replica: CatalogReplica, upstreams: UpstreamPool, private readonly recorder: CallRecorder, policy: CallPolicy, private readonly options: PipelineOptions) {
    const clock = options.clock ?? Date.now;
    this.clock = clock;
    this.records = new CallRecords(recorder);
    this.policyStep = new PolicyStep(policy, this.records, clock);
    this.upstreamStep = new UpstreamStep(replica, upstreams, policy, this.records, options.timeoutMs, options.logger);
  }

  /** Told when an upstream answer breaks its published output schema (a drift signal). */
  onOutputDrift(listener: OutputDriftListener): void {
    this.upstreamStep.onOutputDrift(listener);
  }

  /**
   * `caller` is a session or a single stateless request (caller.context.ts). `context` may be the
   * SDK handler's extra, or just its abort signal. A stateless caller's call may end in an
   * InputRequiredSignal instead of a result.
   */
  async call(session: CallerContext, params: CallParams, context?: CallContext | AbortSignal, options: UpstreamCallOptions = {}): Promise<CallToolResult> {
    const ctx: CallContext = context instanceof AbortSignal ? { signal: context } : (context ?? {});
    const log = mcpRequestLogger(this.options.logger, session.id, ctx);
    const tool = typeof params?.name === 'string' ? params.name.slice(0, MAX_TOOL_NAME) : '';
    const started = performance.now();
    try {
      // One span per call, with the HTTP request's correlation id (the session id over stdio, which has no request).
      const attributes = { 'estate.tool': tool, 'estate.session': session.id };
      const result = await withCorrelation(requestCorrelationId(ctx) ?? session.id, () => withSpan('edge tools/call', attributes, () => this.run(session, params, ctx, options, log)));
      log.debug({ tool, outcome: result.isError ? 'tool_error' : 'ok', ms: Math.round(performance.now() - started) }, 'tools/call answered');
      return result;
    } catch (error) {
      if (error instanceof InputRequiredSignal) throw error;
      if (error instanceof WireError) {
        log.debug({ tool, code: error.code, ms: Math.round(performance.now() - started) }, 'tools/call refused');
        throw error;
      }
      // Our own failure: never dressed up as the caller's mistake.
      log.error({ err: error, tool }, 'tools/call failed inside the edge');
      throw new WireError(-32603, 'Internal error');
    }
  }

  /**
   * A tools/call whose params do not fit MCP's shape, refused at the door with `invalid` before
   * any handler runs (the SDK's schema would answer -32603 with its validator's dump): it pays
   * and is recorded like every call this pipeline refuses. Returns only a rate-limited result.
   */
  refuseUnfit(session: CallerContext, params: unknown, invalid: WireError, context: CallContext = {}): CallToolResult {
    const name = (params as { name?: unknown } | null | undefined)?.name;
    const named = typeof name === 'string' ? name : '';
    const limited = this.admit(session, rightsOf(session, context), named);
    if (limited) return limited;
    this.records.refuse(session, named, undefined, 'invalid_params', invalid.message);
    throw invalid;
  }

  /** What every call meets first, whatever its params: the spool must take its record, and the principal's budget pays. */
  private admit(session: CallerContext, principal: Principal, named: string): CallToolResult | undefined {
    // The call spool is full (the bus has been away long): no call goes upstream unrecorded.
    if (!this.recorder.accepting) throw new WireError(-32000, 'Service unavailable: the edge cannot record calls right now; try again later');
    return this.policyStep.admit(session, principal, named);
  }

  private async run(session: CallerContext, params: CallParams, context: CallContext, options: UpstreamCallOptions, log: LineLogger): Promise<CallToolResult> {
    const principal = rightsOf(session, context);
    const named = typeof params?.name === 'string' ? params.name : '';
    const limited = this.admit(session, principal, named);
    if (limited) return limited;
    const malformed = paramsProblem(params);
    if (malformed) {
      this.records.refuse(session, named, undefined, 'invalid_params', malformed.message);
      throw malformed;
    }
    if (params.name.length > MAX_TOOL_NAME) {
      // Longer than any name the registry accepts: unknown, with the same answer as any other unknown name.
      this.records.refuse(session, params.name, undefined, 'unknown_tool', `Unknown tool: ${params.name}`);
      throw unknownTool(params.name);
    }
    // A sunset already passed retires the version now, not when the registry's sweep event lands.
    const entry = withSunsetsApplied(this.replica.get(params.name) ?? NO_ENTRY, this.clock());
    const pin = pinsFromMeta(params._meta)[params.name] ?? session.pins[params.name];
    const visible = entry.versions.filter((v) => isVisible(principal, v.spec));
    const version = resolveForPrincipal(entry, principal, pin);
    if (!version) {
      const usable = visible.some((v) => !v.quarantined && v.status !== 'retired');
      if (pin !== undefined && usable) {
        const detail = `no version of ${params.name} you may use satisfies the pin "${pin}"`;
        this.records.refuse(session, params.name, undefined, 'invalid_params', detail);
        throw new WireError(-32602, `Invalid params: ${detail}`, { tool: params.name, pin });
      }
      const reason = visible.some((v) => v.quarantined) ? 'quarantined' : 'unknown_tool';
      this.records.refuse(session, params.name, undefined, reason, `Unknown tool: ${params.name}`);
      throw unknownTool(params.name);
    }
    const result = await this.callVersion(session, principal, entry, version, params, context, options, log);
    return noticeDeprecation(session, entry, version, principal, result, context.sendNotification);
  }

  /** Everything after resolution: what it answers carries a deprecation notice when the version is deprecated. */
  private async callVersion(
    session: CallerContext, principal: Principal, entry: CatalogEntry, version: CatalogVersion, params: CallParams, context: CallContext, options: UpstreamCallOptions, log: LineLogger,
  ): Promise<CallToolResult> {
    const step = { 'estate.tool': params.name, 'estate.version': version.version };
    const checked = await withSpan('edge validate arguments', step, () => checkArguments(version.spec.inputSchema, params.arguments ?? {}));
    if (!checked.valid) return this.invalidArguments(session, params.name, version, checked.errors);
    const { repaired } = checked;
    const args = repaired.value as Record<string, unknown>;
    const refusal = await withSpan('edge policy', step, () => this.policyStep.apply(session, principal, version, args, params._meta, context));
    if (refusal) return refusal;
    return withSpan('edge upstream call', step, () => this.upstreamStep.forward(session, entry, version, args, { repaired: repaired.changes.length, cancellation: cancellationOf(context), options, log }));
  }

  private invalidArguments(session: CallerContext, name: string, version: CatalogVersion, errors: ValidationError[]): CallToolResult {
    const lines = validationLines(errors);
    this.records.refuse(session, name, version.version, 'invalid_arguments', lines.join('; '));
    const message = `Invalid arguments for tool ${name}`;
    if (PROTOCOL_ERROR_VERSIONS.has(session.protocolVersion ?? '')) throw new WireError(-32602, message, { errors });
    return toolError(`${message}:\n${lines.join('\n')}`, { 'io.estate/validation': errors });
  }
}

type CheckedArguments = { valid: true; repaired: RepairOutcome } | { valid: false; errors: ValidationError[] };

/**
 * Depth first: repair, validation and the size policy walk the value recursively, so arguments
 * nested past the bound are refused like any other invalid arguments before any of them runs.
 */
function checkArguments(schema: JsonSchema, value: unknown): CheckedArguments {
  const tooDeep = argumentDepthError(value);
  if (tooDeep) return { valid: false, errors: [tooDeep] };
  const repaired = repair(schema, value);
  const checked = validate(schema, repaired.value);
  return checked.valid ? { valid: true, repaired } : checked;
}

function cancellationOf(context: CallContext): CallCancellation | undefined {
  return context.cancellation ?? (context.signal ? signalCancellation(context.signal) : undefined);
}

/** The SDK checks the request schema; this catches what it lets through (an empty name, array arguments). */
function paramsProblem(params: CallParams): WireError | undefined {
  if (typeof params?.name !== 'string' || params.name.length === 0) {
    return new WireError(-32602, 'Invalid params: "name" must be a non-empty string', { path: '/name' });
  }
  const args: unknown = params.arguments;
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    return new WireError(-32602, 'Invalid params: "arguments" must be an object', { path: '/arguments' });
  }
  return undefined;
}
