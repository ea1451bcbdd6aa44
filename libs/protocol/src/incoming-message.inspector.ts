import { checkBatchAllowed } from './batch.policy';
import { invalidRequestError, toErrorResponse } from './json-rpc-message.builder';
import { classifyMessage, type MessageClassification } from './json-rpc-message.classifier';
import { parseJson } from './json-text.parser';
import type {
  JsonRpcErrorObject,
  JsonRpcErrorResponse,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from './json-rpc.types';
import { formatId, truncateForMessage } from './json-value.describer';
import { RequestIdRegistry } from './request-id.registry';
import type { SessionLifecycle } from './session-lifecycle.machine';

/** Hand the (normalised) message on, e.g. to the MCP SDK transport. */
export type ProcessDecision =
  | { readonly action: 'process'; readonly kind: 'request'; readonly message: JsonRpcRequest }
  | { readonly action: 'process'; readonly kind: 'notification'; readonly message: JsonRpcNotification }
  | { readonly action: 'process'; readonly kind: 'response'; readonly message: JsonRpcResponse };

/** Do not process; send `reply` back instead. */
export interface ReplyDecision {
  readonly action: 'reply';
  readonly reply: JsonRpcErrorResponse;
}

/** Do not process and send nothing; `reason` is for logs and audit only. */
export interface DropDecision {
  readonly action: 'drop';
  readonly reason: string;
}

export type MessageDecision = ProcessDecision | ReplyDecision | DropDecision;

/**
 * An admitted batch: one decision per item, in order. Replies and results for the items go
 * back together as one array; when no item produces an answer, nothing is sent at all.
 */
export interface BatchDecision {
  readonly action: 'batch';
  readonly entries: readonly MessageDecision[];
}

export type IncomingDecision = MessageDecision | BatchDecision;

type SingleClassification = Exclude<MessageClassification, { kind: 'batch' }>;

/**
 * The edge's gate for one parsed incoming value: applies the JSON-RPC envelope rules, the
 * batch rule for the session's version and the session's lifecycle, and says what to do.
 * It updates `lifecycle` (ids used, initialize seen, initialized received).
 */
export function inspectIncoming(lifecycle: SessionLifecycle, raw: unknown): IncomingDecision {
  const classified = classifyMessage(raw);
  if (classified.kind !== 'batch') return decide(lifecycle, classified);
  const refusal = checkBatchAllowed(lifecycle.protocolVersion);
  if (refusal !== null) return reply(null, refusal);
  // Bounded by the batch itself (one message body), not by the session's memory.
  const batchIds = new RequestIdRegistry(Number.MAX_SAFE_INTEGER);
  return { action: 'batch', entries: classified.items.map((item) => inspectBatchItem(lifecycle, item, batchIds)) };
}

/** `inspectIncoming` for a raw frame (a stdio line or an HTTP body): unparseable text gets -32700. */
export function inspectIncomingText(lifecycle: SessionLifecycle, text: string): IncomingDecision {
  const parsed = parseJson(text);
  return parsed.ok ? inspectIncoming(lifecycle, parsed.value) : reply(null, parsed.error);
}

function inspectBatchItem(lifecycle: SessionLifecycle, item: unknown, batchIds: RequestIdRegistry): MessageDecision {
  if (Array.isArray(item)) {
    return reply(null, invalidRequestError('a batch must not contain another batch'));
  }
  const classified = classifyMessage(item) as SingleClassification;
  // Said as what it is: the id was never used in the session, only given twice in this batch.
  if (classified.kind === 'request' && !batchIds.add(classified.message.id)) {
    const { id } = classified.message;
    return reply(id, invalidRequestError(`id ${formatId(id)} is repeated within this batch; give every request in a batch its own id`));
  }
  return decide(lifecycle, classified);
}

function decide(lifecycle: SessionLifecycle, classified: SingleClassification): MessageDecision {
  switch (classified.kind) {
    case 'invalid':
      if (classified.shape === 'notification') return drop(`malformed notification: ${classified.error.message}`);
      // A response's id is numbered by the peer's own requests; echoing it would answer one of them.
      return reply(classified.shape === 'response' ? null : classified.id, classified.error);
    case 'request': {
      const { message } = classified;
      const refusal = lifecycle.checkRequest(message.method, message.id);
      return refusal === null ? { action: 'process', kind: 'request', message } : reply(message.id, refusal);
    }
    case 'notification': {
      const { message } = classified;
      if (lifecycle.checkNotification(message.method)) return { action: 'process', kind: 'notification', message };
      return drop(`notification '${truncateForMessage(message.method)}' is not accepted in phase '${lifecycle.phase}'`);
    }
    case 'response':
      if (lifecycle.phase === 'closed') return drop('response received after the session was closed');
      return { action: 'process', kind: 'response', message: classified.message };
  }
}

function reply(id: JsonRpcId | null, error: JsonRpcErrorObject): ReplyDecision {
  return { action: 'reply', reply: toErrorResponse(id, error) };
}

function drop(reason: string): DropDecision {
  return { action: 'drop', reason };
}
