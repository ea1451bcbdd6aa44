/** Latency figures of one sample set, in milliseconds. */
export interface LatencyStats {
  samples: number;
  p50: number;
  p99: number;
  mean: number;
}

/** A load run: how many requests finished in how long. */
export interface ThroughputStats {
  requests: number;
  seconds: number;
  perSecond: number;
  /** Requests that failed; they are not counted in `requests` or `perSecond`. */
  errors: number;
  firstError?: string;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function latencyStats(values: number[]): LatencyStats {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);
  return { samples: values.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean };
}

function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Bounds for every loop: stop at `count` or after `maxMs`, whichever comes first. */
export interface Bounds {
  count: number;
  maxMs: number;
  warmUp?: number;
}

/** An op that timed itself (send to last byte of the answer, the client's parsing left out). */
function selfTimed(result: unknown): number | undefined {
  const wireMs = (result as { wireMs?: unknown } | undefined)?.wireMs;
  return typeof wireMs === 'number' ? wireMs : undefined;
}

/**
 * Runs `op` one at a time and returns each duration in ms (after a warm-up that is not kept); an
 * op resolving to `{ wireMs }` reports its own duration.
 */
export async function sequentialSamples(op: () => Promise<unknown>, bounds: Bounds): Promise<number[]> {
  for (let i = 0; i < (bounds.warmUp ?? 0); i += 1) await op();
  const times: number[] = [];
  const deadline = nowMs() + bounds.maxMs;
  while (times.length < bounds.count && nowMs() < deadline) {
    const start = nowMs();
    const result = await op();
    times.push(selfTimed(result) ?? nowMs() - start);
  }
  return times;
}

/**
 * Subjects measured in alternating rounds, so a noisy moment of a shared 2-core machine lands on
 * every subject alike instead of on whichever ran then. Returns the pooled samples per subject.
 */
export async function interleavedSamples(subjects: Record<string, () => Promise<unknown>>, rounds: number, perRound: Bounds): Promise<Record<string, number[]>> {
  const pooled: Record<string, number[]> = Object.fromEntries(Object.keys(subjects).map((name) => [name, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, op] of Object.entries(subjects)) pooled[name].push(...(await sequentialSamples(op, round === 0 ? perRound : { ...perRound, warmUp: 10 })));
  }
  return pooled;
}

/** `workers.length` loops in parallel, each with its own op (its own session), sharing one budget. */
export async function concurrentThroughput(workers: Array<() => Promise<unknown>>, bounds: Bounds): Promise<ThroughputStats> {
  for (let i = 0; i < (bounds.warmUp ?? 0); i += 1) await Promise.all(workers.map((op) => op()));
  let started = 0;
  let done = 0;
  let errors = 0;
  let firstError: string | undefined;
  const begin = nowMs();
  const deadline = begin + bounds.maxMs;
  await Promise.all(
    workers.map(async (op) => {
      while (started < bounds.count && nowMs() < deadline) {
        started += 1;
        try {
          await op();
          done += 1;
        } catch (error) {
          errors += 1;
          firstError ??= error instanceof Error ? error.message : String(error);
        }
      }
    }),
  );
  const seconds = (nowMs() - begin) / 1000;
  return { requests: done, seconds, perSecond: done / seconds, errors, firstError };
}

export function round(value: number, digits = 3): number {
  return Number(value.toFixed(digits));
}
