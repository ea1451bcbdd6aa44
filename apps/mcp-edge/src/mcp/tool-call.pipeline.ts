import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { resolveForPrincipal } from '@estate/catalog';
import { isRetryable, isVisible, repair, validate, type ValidationError } from '@estate/contracts';
import type { CatalogEntry, CatalogVersion, RefusalReason } from '@estate/events';
import type { CatalogReplica } from '../catalog/catalog.replica';
import type { CallRecorder } from '../calls/call.recorder';
import type { EdgeSession } from '../sessions/edge-session';
import { UpstreamFailure, type UpstreamPool } from '../upstream/upstream.pool';
import { unknownTool, WireError } from './wire-error';

export interface CallParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

const MAX_ATTEMPTS_RETRYABLE = 3;
const RETRY_BASE_MS = 50;
/** Sessions on these revisions get argument errors as JSON-RPC -32602; newer ones as tool errors (SEP-1303). */
const PROTOCOL_ERROR_VERSIONS = new Set(['2024-11-05', '2025-03-26', '2025-06-18']);

export function pinsFromMeta(meta: unknown): Record<string, string> {
  const pins = (meta as Record<string, unknown> | undefined)?.['io.estate/pins'];
  if (typeof pins !== 'object' || pins === null || Array.isArray(pins)) return {};
  return Object.fromEntries(Object.entries(pins).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
}

/**
 * tools/call, in order: discoverability → pin → repair → validation → policy → upstream.
 * Nothing that is refused reaches the upstream.
 */
export class ToolCallPipeline {
  constructor(
    private readonly replica: CatalogReplica,
    private readonly upstreams: UpstreamPool,
    private readonly recorder: CallRecorder,
    private readonly timeoutMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  async call(session: EdgeSession, params: CallParams, signal?: AbortSignal): Promise<CallToolResult> {
    const { principal } = session;
    const entry = this.replica.get(params.name);
    if (!entry || !entry.versions.some((v) => !v.quarantined && isVisible(principal, v.spec))) {
      this.refuse(session, params.name, undefined, 'unknown_tool', `Unknown tool: ${params.name}`);
      throw unknownTool(params.name);
    }
    const pin = pinsFromMeta(params._meta)[params.name] ?? session.pins[params.name];
    const version = resolveForPrincipal(entry, principal, pin);
    if (!version) {
      const detail = `no version of ${params.name} you may use satisfies the pin "${pin}"`;
      this.refuse(session, params.name, undefined, 'invalid_params', detail);
      throw new WireError(-32602, `Invalid params: ${detail}`);
    }
    const repaired = repair(version.spec.inputSchema, params.arguments ?? {});
    const checked = validate(version.spec.inputSchema, repaired.value);
    if (!checked.valid) return this.invalidArguments(session, params.name, version, checked.errors);
    return this.forward(session, entry, version, repaired.value as Record<string, unknown>, repaired.changes.length, signal);
  }

  private invalidArguments(session: EdgeSession, name: string, version: CatalogVersion, errors: ValidationError[]): CallToolResult {
    const lines = errors.map((e) => `${e.path}: ${e.message} (${e.keyword})`);
    this.refuse(session, name, version.version, 'invalid_arguments', lines.join('; '));
    const message = `Invalid arguments for tool ${name}`;
    if (PROTOCOL_ERROR_VERSIONS.has(session.protocolVersion ?? '')) {
      throw new WireError(-32602, message, { errors });
    }
    return {
      isError: true,
      content: [{ type: 'text', text: `${message}:\n${lines.join('\n')}` }],
      _meta: { 'io.estate/validation': errors },
    };
  }

  private async forward(
    session: EdgeSession, entry: CatalogEntry, version: CatalogVersion, args: Record<string, unknown>, repaired: number, signal?: AbortSignal,
  ): Promise<CallToolResult> {
    const started = this.now();
    const attemptsAllowed = isRetryable(version.spec.sideEffect) ? MAX_ATTEMPTS_RETRYABLE : 1;
    let attempts = 0;
    for (;;) {
      attempts += 1;
      try {
        const result = await this.upstreams.call(entry.upstream, version.spec.upstream.tool, args, this.timeoutMs, signal);
        this.complete(session, version, result.isError ? 'tool_error' : 'ok', started, attempts, repaired);
        return result;
      } catch (error) {
        if (!(error instanceof UpstreamFailure)) throw error;
        if (attempts < attemptsAllowed && error.kind !== 'protocol') {
          await new Promise((resolve) => setTimeout(resolve, RETRY_BASE_MS * 2 ** (attempts - 1)));
          continue;
        }
        this.complete(session, version, 'upstream_error', started, attempts, repaired);
        return {
          isError: true,
          content: [{ type: 'text', text: `${version.spec.name} is unavailable: ${error.message}. It was tried ${attempts} time(s); you may retry later.` }],
        };
      }
    }
  }

  private complete(session: EdgeSession, version: CatalogVersion, outcome: 'ok' | 'tool_error' | 'upstream_error', started: number, attempts: number, repaired: number): void {
    this.recorder.record({
      type: 'ToolCallCompleted',
      version: 1,
      data: {
        principal: session.principal.id,
        tenant: session.principal.tenant,
        sessionId: session.id,
        tool: version.spec.name,
        version: version.version,
        outcome,
        durationMs: Math.max(0, this.now() - started),
        attempts,
        repaired,
      },
    }, session.id);
  }

  private refuse(session: EdgeSession, tool: string, version: string | undefined, reason: RefusalReason, detail: string): void {
    this.recorder.record({
      type: 'ToolCallRefused',
      version: 1,
      data: { principal: session.principal.id, tenant: session.principal.tenant, sessionId: session.id, tool, version, reason, detail },
    }, session.id);
  }
}
