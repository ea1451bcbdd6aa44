import { context, createContextKey } from '@opentelemetry/api';
import { tracingStarted } from './tracing';

/**
 * The correlation id of the request or event being handled, for log lines. It rides in the trace
 * context, so it is known exactly where a trace is: with tracing off nothing tracks async context
 * at all (on Node 20 an AsyncLocalStorage would slow every promise in the process).
 */
const CORRELATION = createContextKey('estate.correlation-id');

/** Runs `work` with `correlationId` known to every log line it writes (undefined leaves the outer one). */
export function withCorrelation<T>(correlationId: string | undefined, work: () => T): T {
  if (!correlationId || !tracingStarted()) return work();
  return context.with(context.active().setValue(CORRELATION, correlationId), work);
}

export function currentCorrelationId(): string | undefined {
  const id = context.active().getValue(CORRELATION);
  return typeof id === 'string' ? id : undefined;
}
