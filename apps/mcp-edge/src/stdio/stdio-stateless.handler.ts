import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '@estate/contracts';
import type { Logger } from '@estate/platform';
import {
  acknowledgedFilter, isJsonObject, JSON_RPC_ERROR, parseSubscriptionFilter, subscriptionAcknowledged, type EraDecision, type JsonRpcId,
  type JsonRpcMessage, type JsonRpcRequest, type RequestMeta,
} from '@estate/protocol';
import type { ListChangeListeners } from '../mcp/list-change.listeners';
import type { StatelessDispatcher } from '../mcp/stateless.dispatcher';
import { pinsFromMeta } from '../mcp/tool-call.pipeline';
import type { PrimitiveListenStreams } from '../proxy/primitive-listen.streams';

export interface StdioStatelessDeps {
  dispatcher: StatelessDispatcher;
  listeners: ListChangeListeners;
  /** Resource and prompt changes on listen streams; without it a stream hears tool list changes only. */
  primitives?: PrimitiveListenStreams;
  principal: Principal;
}

/**
 * 2026-07-28 messages on stdio, beside the one session the process holds: each request is
 * answered by the dispatcher on stdout; subscriptions/listen shares stdout with everything else,
 * its messages told apart by the subscription id. On stdio the client cancels with
 * notifications/cancelled, which aborts a request in flight or ends a subscription.
 */
export class StdioStatelessHandler {
  private readonly inFlight = new Map<JsonRpcId, () => void>();

  constructor(private readonly deps: StdioStatelessDeps, private readonly send: (message: JSONRPCMessage) => Promise<void>, private readonly logger: Logger) {}

  handle(decision: Exclude<EraDecision, { era: 'session' }>): void {
    if (decision.era === 'refused') return this.write(decision.reply);
    if (decision.kind === 'notification') return this.cancel(decision.notification.method, decision.notification.params);
    if (decision.request.method === 'subscriptions/listen') return void this.listen(decision.request);
    void this.answer(decision.request, decision.meta);
  }

  private async answer(request: JsonRpcRequest, meta: RequestMeta): Promise<void> {
    if (!this.deps.dispatcher.serves(request.method)) {
      return this.write({ jsonrpc: '2.0', id: request.id, error: { code: JSON_RPC_ERROR.MethodNotFound, message: `Method not found: ${request.method} is not served by this edge` } });
    }
    const aborted = new AbortController();
    this.inFlight.set(request.id, () => aborted.abort());
    try {
      const outcome = await this.deps.dispatcher.dispatch(request, { principal: this.deps.principal, meta, headers: {}, signal: aborted.signal });
      // A cancelled request is not answered: the client has stopped waiting for it.
      if (aborted.signal.aborted) return;
      this.write(outcome.ok ? { jsonrpc: '2.0', id: outcome.id, result: outcome.result } : { jsonrpc: '2.0', id: outcome.id, error: outcome.error });
    } finally {
      this.inFlight.delete(request.id);
    }
  }

  private async listen(request: JsonRpcRequest): Promise<void> {
    const parsed = parseSubscriptionFilter(request.params);
    if (!parsed.ok) return this.write({ jsonrpc: '2.0', id: request.id, error: parsed.error });
    const { primitives, listeners, principal } = this.deps;
    const refusal = primitives?.refusal(parsed.filter);
    if (refusal) return this.write({ jsonrpc: '2.0', id: request.id, error: refusal });
    const filter = primitives ? primitives.honoured(parsed.filter) : acknowledgedFilter(parsed.filter, { flags: ['toolsListChanged'] });
    const stream = { id: request.id, principal, pins: pinsFromMeta(request.params?.['_meta']), filter, send: (m: JsonRpcMessage) => this.write(m), end: () => this.inFlight.get(request.id)?.() };
    // Watched URIs are subscribed upstream before the acknowledgement, so no change after it is
    // missed; a cancel that arrives meanwhile ends the stream before it starts.
    let cancelled = false;
    this.inFlight.set(request.id, () => {
      cancelled = true;
      this.inFlight.delete(request.id);
    });
    const watch = await primitives?.open(stream);
    if (cancelled) return watch?.stop();
    this.write(subscriptionAcknowledged(request.id, filter));
    watch?.start();
    const remove = listeners.add(stream);
    this.inFlight.set(request.id, () => {
      remove();
      watch?.stop();
      this.inFlight.delete(request.id);
    });
  }

  /**
   * Whether a message without `_meta` still belongs here: a notifications/cancelled naming one of
   * our requests or subscriptions (a notification need not carry the version).
   */
  claims(message: unknown): boolean {
    if (!isJsonObject(message) || message['method'] !== 'notifications/cancelled' || Object.hasOwn(message, 'id') || !isJsonObject(message['params'])) return false;
    const id = message['params']['requestId'];
    return (typeof id === 'string' || typeof id === 'number') && this.inFlight.has(id);
  }

  /** A message `claims` accepted. */
  cancelled(message: unknown): void {
    if (isJsonObject(message)) this.cancel(String(message['method']), message['params']);
  }

  private cancel(method: string, params: unknown): void {
    if (method !== 'notifications/cancelled' || !isJsonObject(params)) return;
    const id = params['requestId'];
    if (typeof id === 'string' || typeof id === 'number') this.inFlight.get(id)?.();
  }

  private write(message: JsonRpcMessage): void {
    void this.send(message as JSONRPCMessage).catch((error: unknown) => this.logger.warn({ err: error }, 'could not answer on stdout'));
  }
}
