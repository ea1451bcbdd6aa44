import { invalidRequestError } from './json-rpc-message.builder';
import type { JsonRpcErrorObject } from './json-rpc.types';
import { quoteForMessage } from './json-value.describer';

/** The only revision whose transport accepted JSON-RPC batches: added in 2025-03-26, removed in 2025-06-18. */
const BATCHING_VERSION = '2025-03-26';

export function supportsBatching(protocolVersion: unknown): boolean {
  return protocolVersion === BATCHING_VERSION;
}

/**
 * Null when a batch may be processed in a session on `protocolVersion` (undefined while
 * nothing is negotiated yet); otherwise the -32600 error to answer the whole batch with.
 */
export function checkBatchAllowed(protocolVersion: string | undefined): JsonRpcErrorObject | null {
  if (supportsBatching(protocolVersion)) return null;
  const where =
    protocolVersion === undefined
      ? 'before a protocol version has been negotiated'
      : `on the negotiated protocol version ${quoteForMessage(protocolVersion)}`;
  return invalidRequestError(`JSON-RPC batches are not supported ${where}; send each message on its own`);
}
