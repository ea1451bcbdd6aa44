import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { STATELESS_ERROR, isJsonObject, resultTypeOf, type ClientCapabilities, type Implementation, type LogLevel, type ParamHeader } from '@estate/protocol';
import { UpstreamHttpError, type HttpClientTransport } from './http-client.transport';
import {
  declaredParamHeaders, discoverRequest, initializeResultFrom, paramHeaders, judgeDiscoverAnswer, judgeDiscoverRefusal, listenFilter, readInputRequired, retriedRequest, sessionEraResult,
  statelessHeaders, statelessRequest, type DiscoveredServer, type ProbeVerdict, type StatelessContext, type StatelessRequest,
} from './stateless-upstream.rules';

/** Which revision an upstream answered the probe with; remembered per upstream by the pool. */
export type UpstreamEra = 'stateless' | 'session';

export interface EraMemo {
  remember(era: UpstreamEra): void;
}

/** An upstream asking for input again and again is misbehaving: the call fails after this many rounds. */
const MAX_INPUT_ROUNDS = 8;
const PROBE_TIMEOUT_MS = 10_000;
/** Reopening a dropped listen stream: 1 s, doubling, at most 30 s. */
const RELISTEN_MS = { first: 1000, max: 30_000 };
const EDGE_INFO: Implementation = { name: 'estate-edge', version: '0.1.0' };

interface PendingCall {
  request: StatelessRequest;
  rounds: number;
  responses: Record<string, unknown>;
  missing: Set<string>;
  requestState?: string;
}

function isRequest(message: JSONRPCMessage): message is JSONRPCMessage & StatelessRequest {
  return 'method' in message && 'id' in message;
}

function isResponse(message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId; result?: Record<string, unknown>; error?: { code: number; message: string } } {
  return !('method' in message) && 'id' in message;
}

/**
 * Lets the SDK client, which knows only session revisions, use an upstream that speaks
 * 2026-07-28. Its `initialize` becomes a `server/discover` probe: a 2026 server is then spoken to
 * statelessly (every request with `_meta` and the mirrored headers; no session, no GET stream,
 * list changes through subscriptions/listen), while any other answer sends the `initialize` on
 * unchanged and this transport steps aside. An `input_required` answer is turned into requests to
 * the SDK client, which relays them like a session-era upstream's own, and the upstream call is
 * retried with their answers and the state the upstream handed out.
 */
export class StatelessUpstreamTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private era?: UpstreamEra;
  private context: StatelessContext = { capabilities: {}, clientInfo: EDGE_INFO };
  private discovered?: DiscoveredServer;
  private next = 0;
  /** The edge's own requests (the probe, the listen stream): their answers never reach the SDK client. */
  private readonly own = new Map<RequestId, (message: JSONRPCMessage) => void>();
  private readonly calls = new Map<RequestId, PendingCall>();
  /** Input requests handed to the SDK client, by the id it answers: which call and which key. */
  private readonly inputs = new Map<RequestId, { call: RequestId; key: string }>();
  /** The `x-mcp-header` declarations of the upstream's tools, from its latest tools/list pages. */
  private readonly mirrored = new Map<string, readonly ParamHeader[]>();
  private listening?: { id: string; filter: Record<string, boolean>; failures: number; missed: boolean };
  private relisten?: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly inner: HttpClientTransport, private readonly memo: EraMemo, private readonly probeTimeoutMs = PROBE_TIMEOUT_MS) {
    inner.headersFor = (message) => (this.era === 'session' ? {} : this.headersFor(message));
  }

  private headersFor(message: JSONRPCMessage): Record<string, string> {
    const headers = statelessHeaders(message);
    if (!isRequest(message) || message.method !== 'tools/call') return headers;
    const declared = this.mirrored.get(String(message.params?.['name']));
    return declared ? { ...headers, ...paramHeaders(declared, message.params?.['arguments']) } : headers;
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  /** The revision this connection settled on; undefined until the SDK client's initialize. */
  get revision(): UpstreamEra | undefined {
    return this.era;
  }

  /** The plain transport underneath once the upstream turned out to keep sessions (this one only passes messages on then). */
  get sessionTransport(): HttpClientTransport | undefined {
    return this.era === 'session' ? this.inner : undefined;
  }

  async start(): Promise<void> {
    this.inner.onmessage = (message) => this.receive(message);
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onclose = () => this.onclose?.();
    this.inner.onUnansweredEnd = (id) => this.listenEnded(id);
    await this.inner.start();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.relisten);
    await this.inner.close();
  }

  setProtocolVersion(version: string): void {
    // A stateless upstream is always told 2026-07-28, whatever the SDK client negotiated with us.
    if (this.era === 'session') this.inner.setProtocolVersion(version);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.era === 'session') return this.inner.send(message, options);
    if (isRequest(message)) {
      if (message.method === 'initialize') return this.initialize(message, options);
      if (message.method === 'logging/setLevel') return this.setLevel(message);
      this.calls.set(message.id, { request: message, rounds: 0, responses: {}, missing: new Set() });
      return this.inner.send(statelessRequest(message, this.context) as JSONRPCMessage, options);
    }
    if (isResponse(message)) return this.answerInput(message);
    if ('method' in message && message.method === 'notifications/initialized') this.listen();
    if ('method' in message && message.method === 'notifications/cancelled') this.cancel((message.params as { requestId?: RequestId } | undefined)?.requestId);
    // Other notifications have no place in this revision.
  }

  private async initialize(message: StatelessRequest, options?: TransportSendOptions): Promise<void> {
    const params = message.params ?? {};
    this.context = {
      capabilities: isJsonObject(params['capabilities']) ? (params['capabilities'] as ClientCapabilities) : {},
      clientInfo: isJsonObject(params['clientInfo']) ? (params['clientInfo'] as Implementation) : EDGE_INFO,
    };
    const verdict = await this.probe();
    if (verdict.era === 'refused') throw new UpstreamHttpError(400, verdict.reason);
    this.era = verdict.era;
    this.memo.remember(verdict.era);
    if (verdict.era === 'session') {
      // An older server: the handshake goes out exactly as it came, and this transport steps aside.
      this.inner.sessionId = undefined;
      return this.inner.send(message as JSONRPCMessage, options);
    }
    this.discovered = verdict.server;
    const requested = typeof params['protocolVersion'] === 'string' ? params['protocolVersion'] : '';
    this.deliver({ jsonrpc: '2.0', id: message.id, result: initializeResultFrom(verdict.server, requested) } as JSONRPCMessage);
  }

  /** A probe left unanswered counts as an older server's silence (the revision's rule for stdio): the handshake follows. */
  private async probe(): Promise<ProbeVerdict> {
    const id = `estate-discover-${(this.next += 1)}`;
    let timer: NodeJS.Timeout | undefined;
    const answered = new Promise<JSONRPCMessage | undefined>((resolve) => {
      this.own.set(id, resolve);
      timer = setTimeout(() => resolve(undefined), this.probeTimeoutMs);
    });
    try {
      // The timeout covers the whole exchange: a server may also hold back the response headers.
      const sent = this.inner.send(discoverRequest(id, this.context) as JSONRPCMessage).then(() => answered);
      const answer = await Promise.race([sent, answered]);
      if (answer !== undefined) return judgeDiscoverAnswer(answer);
      this.inner.abort(id);
      return { era: 'session', reason: `no answer to server/discover within ${this.probeTimeoutMs} ms` };
    } catch (error) {
      if (error instanceof UpstreamHttpError && error.status >= 400 && error.status < 500) return judgeDiscoverRefusal(error.status, error.body);
      throw error;
    } finally {
      clearTimeout(timer);
      this.own.delete(id);
    }
  }

  /** The revision has no logging/setLevel: the level rides on every later request instead. */
  private async setLevel(message: StatelessRequest): Promise<void> {
    const level = message.params?.['level'];
    if (typeof level === 'string') this.context = { ...this.context, logLevel: level as LogLevel };
    this.deliver({ jsonrpc: '2.0', id: message.id, result: {} } as JSONRPCMessage);
  }

  /** Opens one subscriptions/listen stream for the list changes the upstream declared (the drift watch relists on them). */
  private listen(): void {
    const filter = this.listening?.filter ?? listenFilter(this.discovered?.capabilities ?? {});
    if (!filter || this.closed) return;
    const id = `estate-listen-${(this.next += 1)}`;
    this.listening = { id, filter, failures: this.listening?.failures ?? 0, missed: this.listening?.missed ?? false };
    // A final answer closes the stream like a drop does.
    this.own.set(id, () => this.listenEnded(id));
    const request = statelessRequest({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications: filter } }, this.context);
    this.inner.send(request as JSONRPCMessage).catch((error: Error) => {
      this.onerror?.(error);
      this.listenEnded(id);
    });
  }

  /** The stream is gone: open another after a pause; changes made meanwhile are caught by a relist once it is back. */
  private listenEnded(id: RequestId): void {
    const listening = this.listening;
    if (!listening || listening.id !== id || this.closed) return;
    this.own.delete(id);
    listening.id = '';
    listening.missed = true;
    const delay = Math.min(RELISTEN_MS.first * 2 ** listening.failures, RELISTEN_MS.max);
    listening.failures += 1;
    this.relisten = setTimeout(() => this.listen(), delay);
    this.relisten.unref();
  }

  /** The upstream acknowledged a (re)opened stream: what changed while none was open is announced to the SDK client as changed. */
  private listenAcknowledged(): void {
    const listening = this.listening;
    if (!listening) return;
    listening.failures = 0;
    if (!listening.missed) return;
    listening.missed = false;
    const methods = { toolsListChanged: 'tools', promptsListChanged: 'prompts', resourcesListChanged: 'resources' } as const;
    for (const flag of Object.keys(listening.filter) as Array<keyof typeof methods>) {
      this.deliver({ jsonrpc: '2.0', method: `notifications/${methods[flag]}/list_changed` } as JSONRPCMessage);
    }
  }

  private receive(message: JSONRPCMessage): void {
    if ('method' in message && message.method === 'notifications/subscriptions/acknowledged') return this.listenAcknowledged();
    if (!isResponse(message)) return this.deliver(message);
    const own = this.own.get(message.id);
    if (own) return own(message);
    const call = this.calls.get(message.id);
    if (!call) return this.deliver(message);
    this.calls.delete(message.id);
    const result = message.result;
    if (!isJsonObject(result)) return this.deliver(message);
    if (call.request.method === 'tools/list') this.learnTools(call.request, result);
    if (resultTypeOf(result) !== 'input_required') return this.deliver({ ...message, result: sessionEraResult(result) } as JSONRPCMessage);
    this.askForInput(message.id, call, result);
  }

  private learnTools(request: StatelessRequest, result: Record<string, unknown>): void {
    // A first page starts the list afresh; later pages add to it.
    if (request.params?.['cursor'] === undefined) this.mirrored.clear();
    for (const [name, headers] of declaredParamHeaders(result)) this.mirrored.set(name, headers);
  }

  private askForInput(id: RequestId, call: PendingCall, result: Record<string, unknown>): void {
    const asked = readInputRequired(result);
    if (!asked.ok) return this.fail(id, `the upstream's input_required result is malformed: ${asked.reason}`);
    if ((call.rounds += 1) > MAX_INPUT_ROUNDS) return this.fail(id, `the upstream asked for input more than ${MAX_INPUT_ROUNDS} times`);
    const pending: PendingCall = { ...call, responses: {}, missing: new Set(Object.keys(asked.inputRequests)), requestState: asked.requestState };
    this.calls.set(id, pending);
    if (pending.missing.size === 0) return this.retry(id, pending);
    for (const [key, request] of Object.entries(asked.inputRequests)) {
      const inputId = `estate-input-${(this.next += 1)}`;
      this.inputs.set(inputId, { call: id, key });
      this.deliver({ jsonrpc: '2.0', id: inputId, method: request.method, params: request.params ?? {} } as JSONRPCMessage);
    }
  }

  private answerInput(message: JSONRPCMessage & { id: RequestId; result?: Record<string, unknown>; error?: { code: number; message: string } }): void {
    const slot = this.inputs.get(message.id);
    if (!slot) return;
    this.inputs.delete(message.id);
    const call = this.calls.get(slot.call);
    if (!call) return;
    if (message.error) {
      this.forget(slot.call);
      // Not retried: the same request would be refused or unanswerable again.
      return this.fail(slot.call, `the upstream's ${slot.key} input request was not answered: ${message.error.message}`, STATELESS_ERROR.MissingRequiredClientCapability.code);
    }
    call.responses[slot.key] = message.result ?? {};
    call.missing.delete(slot.key);
    if (call.missing.size === 0) this.retry(slot.call, call);
  }

  private retry(id: RequestId, call: PendingCall): void {
    const request = statelessRequest(retriedRequest(call.request, call.responses, call.requestState), this.context);
    this.inner.send(request as JSONRPCMessage).catch((error: Error) => {
      this.calls.delete(id);
      this.fail(id, `the retry after input_required failed: ${error.message}`);
    });
  }

  /** The SDK client gave up on a request (timeout, abort): on HTTP the revision cancels by closing its stream. */
  private cancel(id: RequestId | undefined): void {
    if (id === undefined) return;
    this.forget(id);
    this.inner.abort(id);
  }

  /** Drops what is kept for a call that will not be answered. */
  private forget(id: RequestId | undefined): void {
    if (id === undefined) return;
    this.calls.delete(id);
    for (const [inputId, slot] of this.inputs) if (slot.call === id) this.inputs.delete(inputId);
  }

  private fail(id: RequestId, message: string, code = -32603): void {
    this.deliver({ jsonrpc: '2.0', id, error: { code, message } } as JSONRPCMessage);
  }

  private deliver(message: JSONRPCMessage): void {
    this.onmessage?.(message);
  }
}
