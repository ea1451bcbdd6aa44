/**
 * Whether an error means a backing service (PostgreSQL, or Kafka) could not be reached, as opposed to a
 * fault in the request or in our code. Such errors answer 503 with Retry-After: the caller did
 * nothing wrong and the same request will work once the connection is back.
 */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);

/** SQLSTATEs for a server going away or refusing connections (class 08, 57P01-57P03, 53300 too many connections). */
const SQLSTATES = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;

/** pg, pg-pool and TypeORM word these without a code. */
const MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error and is not queryable/i,
  /Connection is not established/i,
  /terminating connection due to administrator command/i,
  /the database system is (starting up|shutting down)/i,
];

export function isBackendOutage(error: unknown): boolean {
  return causes(error).some((e) => {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQLSTATES.test(code))) return true;
    return typeof message === 'string' && MESSAGES.some((pattern) => pattern.test(message));
  });
}

/** The error and what it wraps: `cause`, TypeORM's `driverError`, an AggregateError's `errors`. */
function causes(error: unknown, depth = 0): unknown[] {
  if (typeof error !== 'object' || error === null || depth > 5) return [];
  const { cause, driverError, errors } = error as { cause?: unknown; driverError?: unknown; errors?: unknown };
  const nested = [cause, driverError, ...(Array.isArray(errors) ? errors : [])];
  return [error, ...nested.flatMap((e) => causes(e, depth + 1))];
}
