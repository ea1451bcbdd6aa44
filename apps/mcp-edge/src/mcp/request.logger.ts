import type { IncomingHttpHeaders } from 'node:http';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { activeTraceIds, correlationOf, LazyLogger, logIdsOf, type Logger } from '@estate/platform';

/** What the SDK hands a request handler that names the request: its id and the HTTP request it came in. */
export interface RequestOrigin {
  requestId?: RequestId;
  requestInfo?: { headers: IncomingHttpHeaders };
}

/** The correlation id the HTTP request was given (traceRequests sets it on every /mcp request); none over stdio. */
export function requestCorrelationId(origin: RequestOrigin): string | undefined {
  const header = origin.requestInfo?.headers['x-correlation-id'];
  return typeof header === 'string' ? header : undefined;
}

/**
 * The logger of one JSON-RPC request: its session, its id, and the trace and correlation ids of
 * the HTTP request that carried it (a stdio request gets a fresh correlation id). Lazy: nothing is
 * built unless a line is written at an enabled level.
 */
export function mcpRequestLogger(base: Logger, sessionId: string, origin: RequestOrigin): LazyLogger {
  return new LazyLogger(base, () => {
    const headers = origin.requestInfo?.headers ?? {};
    const ids = logIdsOf(headers, requestCorrelationId(origin) ?? correlationOf(headers));
    return { ...ids, traceId: activeTraceIds()?.traceId ?? ids.traceId, sessionId, ...(origin.requestId === undefined ? {} : { requestId: origin.requestId }) };
  });
}
