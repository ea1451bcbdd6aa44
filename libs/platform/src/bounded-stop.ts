import type { Logger } from 'pino';

/** Resolves with `work`, or with 'overran' once `ms` have passed; the work is left running. */
export async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T | 'overran'> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'overran'>((resolve) => {
    timer = setTimeout(() => resolve('overran'), ms);
    timer.unref();
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export interface StopStep {
  name: string;
  stop: () => Promise<void>;
  /** This step's own bound, when the default does not fit. */
  ms?: number;
}

/**
 * Stops each part in order, each bounded: one part that hangs (a consumer leaving its group, a
 * server waiting on a stream) must not keep the rest, or the process, alive. A failure or an
 * overrun is logged and the next part still stops; the first failure is rethrown at the end.
 */
export async function stopInOrder(logger: Logger, steps: StopStep[], stepMs = 3000): Promise<void> {
  let failure: unknown;
  for (const step of steps) {
    const started = Date.now();
    const ms = step.ms ?? stepMs;
    try {
      if ((await withDeadline(step.stop(), ms)) === 'overran') {
        logger.warn({ part: step.name, ms }, `${step.name} did not stop within ${ms} ms; going on without it`);
        continue;
      }
      logger.debug({ part: step.name, ms: Date.now() - started }, 'stopped');
    } catch (error) {
      logger.warn({ part: step.name, err: error }, `${step.name} failed to stop cleanly`);
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
}
