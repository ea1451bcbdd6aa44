import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@estate/platform';
import { inspectIncoming, inspectIncomingText, negotiateMessageEra, parseJson, type JsonRpcRequest, type JsonRpcResponse, type MessageDecision } from '@estate/protocol';
import { pinsFromMeta } from '../mcp/tool-call.pipeline';
import type { EdgeSession } from '../sessions/edge-session';
import type { StdioStatelessHandler } from './stdio-stateless.handler';

export interface StdioGateOptions {
  /** Takes a message that declares its version in `_meta` (2026-07-28). */
  stateless?: StdioStatelessHandler;
  /** When ESTATE_STDIO_TOKEN expires (ms since the epoch): from then on every request is refused, every notification dropped. */
  rightsUntil?: number;
  /** The answer to a request whose params do not fit its method (SessionManager.answerUnfit); null when they fit. */
  answerUnfit?: (request: JsonRpcRequest) => JsonRpcResponse | null;
}

/**
 * Reads stdin line by line and applies the seeds' rules before the SDK sees anything: garbage
 * gets -32700, requests out of lifecycle order get -32600, requests whose params do not fit their
 * method get -32602 (a tools/call so refused is recorded), bad notifications are dropped. The SDK
 * transport is attached to an input that never speaks; admitted messages are handed to it here.
 * On 2025-03-26 a batch is admitted item by item and answered line by line. A message that
 * declares its version in `_meta` (2026-07-28) is no part of the session and goes to `stateless`.
 */
export class StdioGate {
  /** Requests read and not answered yet, by id (typed, so 1 and "1" stay apart). */
  private readonly pending = new Set<string>();
  private drained?: () => void;
  private readonly stateless?: StdioStatelessHandler;
  private readonly rightsUntil?: number;

  constructor(
    private readonly session: EdgeSession,
    private readonly transport: StdioServerTransport,
    private readonly logger: Logger,
    private readonly options: StdioGateOptions = {},
    private readonly clock: () => number = Date.now,
  ) {
    this.stateless = options.stateless;
    this.rightsUntil = options.rightsUntil;
    // Every answer leaves through the transport, the SDK's and ours alike: each one settles its request.
    const send = transport.send.bind(transport);
    transport.send = (message: JSONRPCMessage) => {
      if (isAnswer(message)) this.settle(message.id);
      return send(message);
    };
  }

  /**
   * Resolves when the input ends and every request read before it has been answered, or
   * `drainMs` after the end. A client that writes its requests and closes stdin (`printf … |
   * estate stdio`) still gets its answers, and a call already under way finishes and is recorded
   * instead of being cut off with its call record.
   */
  async run(input: Readable, drainMs = 30_000): Promise<void> {
    const lines = createInterface({ input, crlfDelay: Infinity });
    lines.on('line', (line) => this.receive(line));
    await new Promise((resolve) => lines.once('close', resolve));
    if (this.pending.size === 0) return;
    this.logger.info({ pending: this.pending.size }, 'stdin closed; answering the requests already read first');
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.logger.warn({ pending: this.pending.size, ms: drainMs }, 'requests still unanswered after stdin closed; stopping anyway');
        resolve();
      }, drainMs);
      this.drained = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private settle(id: unknown): void {
    this.pending.delete(idKey(id));
    if (this.pending.size === 0) this.drained?.();
  }

  private receive(line: string): void {
    if (line.trim() === '') return;
    const read = parseJson(line);
    if (read.ok && this.rightsUntil !== undefined && this.clock() >= this.rightsUntil) return this.refuseExpired(read.value);
    if (read.ok) {
      for (const request of requestsIn(read.value)) this.pending.add(idKey(request.id));
      // A request the client cancelled gets no answer: nothing to wait for.
      const cancelled = cancelledRequestOf(read.value);
      if (cancelled !== undefined) this.settle(cancelled);
    }
    if (this.stateless) {
      const era = read.ok ? negotiateMessageEra(read.value, this.session.lifecycle.phase !== 'awaiting-initialize') : undefined;
      if (era !== undefined && era.era !== 'session') return this.stateless.handle(era);
      if (read.ok && this.stateless.claims(read.value)) return this.stateless.cancelled(read.value);
    }
    // The line was parsed once above: inspecting the text would parse it again.
    const decision = read.ok ? inspectIncoming(this.session.lifecycle, read.value) : inspectIncomingText(this.session.lifecycle, line);
    if (decision.action === 'batch') decision.entries.forEach((entry) => this.apply(entry));
    else this.apply(decision);
  }

  /**
   * The token this process was started with has expired: a request gets an error saying so (a
   * desktop client would otherwise keep using a 12-hour token for days), anything else is dropped.
   */
  private refuseExpired(value: unknown): void {
    const message = `the token in ESTATE_STDIO_TOKEN expired at ${new Date(this.rightsUntil as number).toISOString()}; restart this server with a new one`;
    for (const request of requestsIn(value)) {
      void this.transport.send({ jsonrpc: '2.0', id: request.id, error: { code: TOKEN_EXPIRED, message } }).catch((error: unknown) => this.logger.warn({ err: error }, 'could not answer on stdout'));
    }
    this.logger.warn({ expired: new Date(this.rightsUntil as number).toISOString() }, 'refused a message: ESTATE_STDIO_TOKEN has expired');
  }

  private apply(decision: MessageDecision): void {
    switch (decision.action) {
      case 'reply':
        return this.answer(decision.reply);
      case 'drop':
        this.logger.debug({ reason: decision.reason }, 'dropped an incoming message');
        return;
      case 'process': {
        let message = decision.message;
        if (decision.kind === 'request' && decision.message.method === 'initialize') {
          this.session.pins = pinsFromMeta(decision.message.params?._meta);
          message = this.session.acceptInitialize(decision.message);
        } else if (decision.kind === 'request') {
          // The SDK would answer params that do not fit with -32603 and its validator's dump.
          const unfit = this.options.answerUnfit?.(decision.message);
          if (unfit) return this.answer(unfit);
        }
        this.transport.onmessage?.(message as JSONRPCMessage);
      }
    }
  }

  private answer(reply: JsonRpcResponse): void {
    void this.transport.send(reply as JSONRPCMessage).catch((error: unknown) => this.logger.warn({ err: error }, 'could not answer on stdout'));
  }
}

/** The server error an expired start-up token is answered with (the HTTP edge answers 401). */
const TOKEN_EXPIRED = -32000;

function idKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}

/** A response: an id with a result or an error (what settles a request). */
function isAnswer(message: unknown): message is { id: unknown } {
  return typeof message === 'object' && message !== null && 'id' in message && ('result' in message || 'error' in message);
}

/** The requests (method and a usable id) in one line's JSON, a batch included. */
function requestsIn(value: unknown): Array<{ id: string | number }> {
  return (Array.isArray(value) ? value : [value]).filter((item): item is { id: string | number; method: string } =>
    typeof item === 'object' && item !== null && typeof (item as { method?: unknown }).method === 'string'
    && (typeof (item as { id?: unknown }).id === 'string' || typeof (item as { id?: unknown }).id === 'number'));
}

function cancelledRequestOf(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || (value as { method?: unknown }).method !== 'notifications/cancelled') return undefined;
  return (value as { params?: { requestId?: unknown } }).params?.requestId;
}
