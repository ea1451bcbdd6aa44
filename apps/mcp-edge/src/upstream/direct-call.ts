import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { CallCancellation } from './call.cancellation';

/** What a direct call needs of the client transport (http-client.transport.ts). */
export interface DirectCallTransport {
  send(message: JSONRPCMessage): Promise<void>;
  /** Hands the response to request `id` (or the error that ended the connection) to `settle` instead of the SDK client. */
  expect(id: RequestId, settle: (response: JSONRPCMessage | Error) => void): void;
  forget(id: RequestId): void;
}

/**
 * Ids of the edge's own calls. The SDK client on the same upstream session counts its requests
 * from 0; these start far above, so an upstream never sees the same id twice at once.
 */
const FIRST_ID = 1_000_000_000;
let nextId = FIRST_ID;

function settleResponse(response: JSONRPCMessage | Error): CallToolResult {
  if (response instanceof Error) throw response;
  if ('error' in response) throw McpError.fromError(response.error.code, response.error.message, response.error.data);
  const parsed = CallToolResultSchema.safeParse((response as { result?: unknown }).result);
  if (!parsed.success) throw parsed.error;
  return parsed.data;
}

/**
 * One tools/call sent straight through the client transport, without the SDK client's request
 * machinery, which was a fifth of the upstream client's CPU per call. It behaves as
 * `Client.request` does, error for error: the same result parsing, a timeout or an abort sends
 * notifications/cancelled upstream and fails with the SDK's RequestTimeout error, an error
 * answer becomes the same McpError. Only calls without progress come this way; what the upstream
 * sends during the call (logging, sampling and elicitation requests) still reaches the SDK client.
 */
export function callDirect(transport: DirectCallTransport, params: { name: string; arguments: Record<string, unknown> }, timeoutMs: number, cancellation?: CallCancellation): Promise<CallToolResult> {
  return new Promise((resolve, reject) => {
    if (cancellation?.aborted) cancellation.signal.throwIfAborted();
    const id = nextId;
    nextId = nextId >= Number.MAX_SAFE_INTEGER ? FIRST_ID : nextId + 1;
    let settled = false;
    const timer = setTimeout(() => cancel(McpError.fromError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: timeoutMs })), timeoutMs);
    const finish = () => {
      settled = true;
      clearTimeout(timer);
      stopListening?.();
      transport.forget(id);
    };
    const cancel = (reason: unknown) => {
      if (settled) return;
      finish();
      const cancelled: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: String(reason) } };
      transport.send(cancelled).catch(() => undefined);
      reject(reason instanceof McpError ? reason : new McpError(ErrorCode.RequestTimeout, String(reason)));
    };
    // Registered after `finish` and `cancel` exist; neither can run before this line (a cancel that came first threw above).
    const stopListening = cancellation?.onAbort(() => cancel(cancellation.signal.reason));
    transport.expect(id, (response) => {
      if (settled) return;
      finish();
      try {
        resolve(settleResponse(response));
      } catch (error) {
        reject(error);
      }
    });
    transport.send({ jsonrpc: '2.0', id, method: 'tools/call', params }).catch((error: unknown) => {
      if (settled) return;
      finish();
      reject(error);
    });
  });
}
