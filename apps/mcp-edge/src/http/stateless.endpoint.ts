import type { IncomingMessage, ServerResponse } from 'node:http';
import { atDeadline } from '@estate/platform';
import {
  acknowledgedFilter, JSON_RPC_ERROR, parseSubscriptionFilter, STATELESS_ERROR, subscriptionAcknowledged, subscriptionClosed,
  type EraDecision, type Implementation, type JsonRpcMessage, type JsonRpcRequest,
} from '@estate/protocol';
import type { ListChangeListeners } from '../mcp/list-change.listeners';
import type { StatelessDispatcher } from '../mcp/stateless.dispatcher';
import type { PrimitiveListenStreams } from '../proxy/primitive-listen.streams';
import type { RequestRights } from '../sessions/request-rights';
import { pinsFromMeta } from '../mcp/tool-call.pipeline';
import { CallCancelled } from '../upstream/call.cancellation';
import { rpcError, sendJson } from './json-rpc.reply';


export interface StatelessEndpointDeps {
  dispatcher: StatelessDispatcher;
  listeners: ListChangeListeners;
  /** Resource and prompt changes on listen streams; without it a stream hears tool list changes only. */
  primitives?: PrimitiveListenStreams;
  /** An idle listen stream gets an SSE comment this often, so proxies do not close it as dead. */
  keepAliveMs?: number;
  /** Named in the answer that closes a listen stream the edge ends. */
  serverInfo?: Implementation;
}

type StatelessDecision = Extract<EraDecision, { era: 'stateless' }>;

/** Codes of the revision's own refusals: the client's mistake, 400 wherever they arise. */
const BAD_REQUEST_CODES = new Set<number>(Object.values(STATELESS_ERROR).map((entry) => entry.code));

/**
 * Serves one POST of the 2026-07-28 revision, after the era negotiation accepted it: no session
 * is looked up or made. A notification is accepted and dropped (the revision defines none a
 * client sends over HTTP); subscriptions/listen becomes an SSE stream; everything else is one
 * JSON answer from the dispatcher. A method of the revision the edge does not serve is 404 with
 * -32601, as the transport asks; a handler's error for a served method (an unknown tool) is 200.
 */
export async function serveStateless(deps: StatelessEndpointDeps, req: IncomingMessage, res: ServerResponse, rights: RequestRights, decision: StatelessDecision): Promise<void> {
  if (decision.kind === 'notification') {
    res.writeHead(202).end();
    return;
  }
  if (!acceptsBoth(req, res)) return;
  const { request, meta } = decision;
  const { principal } = rights;
  if (request.method === 'subscriptions/listen') return listen(deps, req, res, rights, request);
  if (!deps.dispatcher.serves(request.method)) {
    return rpcError(res, 404, request.id, { code: JSON_RPC_ERROR.MethodNotFound, message: `Method not found: ${request.method} is not served by this edge` });
  }
  const aborted = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) aborted.abort(new CallCancelled('connection_closed'));
  });
  // A request with a progressToken may get its answer as SSE: progress first, then the response.
  const progress = meta.progressToken === undefined ? undefined : new ProgressStream(res, meta.progressToken);
  const outcome = await deps.dispatcher.dispatch(request, { principal, meta, headers: req.headers, signal: aborted.signal, onprogress: progress && ((p) => progress.send(p)) });
  if (res.destroyed) return;
  const answer = outcome.ok ? { jsonrpc: '2.0', id: outcome.id, result: outcome.result } : { jsonrpc: '2.0', id: outcome.id, error: outcome.error };
  if (progress?.started) return progress.finish(answer);
  return sendJson(res, outcome.ok || !BAD_REQUEST_CODES.has(outcome.error.code) ? 200 : 400, answer);
}

/** Opens the SSE answer on the first progress notification; until then the answer can still be plain JSON. */
class ProgressStream {
  started = false;

  constructor(private readonly res: ServerResponse, private readonly token: string | number) {}

  send(progress: { progress: number; total?: number }): void {
    if (this.res.writableEnded) return;
    if (!this.started) {
      this.started = true;
      this.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' });
    }
    this.write({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: this.token, ...progress } });
  }

  finish(answer: unknown): void {
    this.write(answer);
    this.res.end();
  }

  private write(message: unknown): void {
    this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }
}

/** The revision's clients must take both answers (JSON and SSE); one that does not cannot be served. */
function acceptsBoth(req: IncomingMessage, res: ServerResponse): boolean {
  const accept = req.headers.accept ?? '';
  if (accept.includes('application/json') && accept.includes('text/event-stream')) return true;
  rpcError(res, 406, null, { code: JSON_RPC_ERROR.InvalidRequest, message: 'Not Acceptable: the Accept header must list application/json and text/event-stream' });
  return false;
}

/**
 * subscriptions/listen: the answer is an SSE stream that stays open. Its first message says which
 * notifications the edge will send; then list changes arrive whenever this principal's lists
 * change, and resources/updated for the URIs it watches. Closing the stream ends the subscription.
 * The stream lasts no longer than the token that opened it: at its expiry the listen request is
 * answered (as at shutdown) and the stream ends, so the client reopens it with a fresh token.
 */
async function listen(deps: StatelessEndpointDeps, req: IncomingMessage, res: ServerResponse, rights: RequestRights, request: JsonRpcRequest): Promise<void> {
  const { principal } = rights;
  const parsed = parseSubscriptionFilter(request.params);
  if (!parsed.ok) return rpcError(res, 400, request.id, parsed.error);
  const refusal = deps.primitives?.refusal(parsed.filter);
  if (refusal) return rpcError(res, 400, request.id, refusal);
  const filter = deps.primitives ? deps.primitives.honoured(parsed.filter) : acknowledgedFilter(parsed.filter, { flags: ['toolsListChanged'] });
  const send = (message: JsonRpcMessage) => {
    if (!res.writableEnded) res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  };
  const stream = { id: request.id, principal, pins: pinsFromMeta(request.params?.['_meta']), filter, send, end: () => res.end() };
  // Watched URIs are subscribed upstream before the acknowledgement, so no change after it is missed.
  const watch = await deps.primitives?.open(stream);
  if (res.destroyed) return watch?.stop();
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive' });
  res.flushHeaders();
  send(subscriptionAcknowledged(request.id, filter));
  watch?.start();
  const remove = deps.listeners.add(stream);
  const keepAlive = setInterval(() => {
    if (!res.writableEnded) res.write(': keep-alive\n\n');
  }, deps.keepAliveMs ?? 25_000);
  keepAlive.unref();
  // After the answer nothing more is written (send checks writableEnded); 'close' then tidies up.
  const cancelExpiry = rights.until === undefined ? undefined : atDeadline(rights.until, () => {
    send(subscriptionClosed(request.id, deps.serverInfo));
    res.end();
  });
  res.once('close', () => {
    clearInterval(keepAlive);
    cancelExpiry?.();
    remove();
    watch?.stop();
  });
  req.once('error', () => res.destroy());
}
