import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The correlation id of the request or event being handled, for log lines. Kept apart from the
 * trace context on purpose: it must be known with tracing switched off too.
 */
const current = new AsyncLocalStorage<string>();

/** Runs `work` with `correlationId` known to every log line it writes (undefined leaves the outer one). */
export function withCorrelation<T>(correlationId: string | undefined, work: () => T): T {
  return correlationId ? current.run(correlationId, work) : work();
}

export function currentCorrelationId(): string | undefined {
  return current.getStore();
}
