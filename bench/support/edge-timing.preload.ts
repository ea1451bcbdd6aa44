/**
 * Preloaded into an edge child (`-r @swc-node/register -r bench/support/edge-timing.preload.ts`)
 * by bench/edge-list.anatomy.ts. The first SIGUSR2 starts timing, the second prints one line,
 * `edge-timing {json}`, to stderr: the time from each HTTP request's 'request' event to its
 * response's 'finish' (the edge's own share of a list), the event loop's delay, and the GC
 * pauses, over the window. Bench-only: nothing in apps/ loads it.
 */
import * as http from 'node:http';
import { monitorEventLoopDelay, PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';

const handled: number[] = [];
const pauses: number[] = [];
let timing = false;
let delay: IntervalHistogram | undefined;
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) pauses.push(entry.duration);
});

const emit = http.Server.prototype.emit as (this: http.Server, event: string, ...args: unknown[]) => boolean;
http.Server.prototype.emit = function timedEmit(this: http.Server, event: string, ...args: unknown[]): boolean {
  if (timing && event === 'request') {
    const started = process.hrtime.bigint();
    (args[1] as http.ServerResponse).once('finish', () => handled.push(Number(process.hrtime.bigint() - started) / 1e6));
  }
  return emit.call(this, event, ...args);
} as typeof http.Server.prototype.emit;

function quantile(sorted: number[], q: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

process.on('SIGUSR2', () => {
  if (!timing) {
    timing = true;
    handled.length = 0;
    pauses.length = 0;
    delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    gcObserver.observe({ entryTypes: ['gc'] });
    return;
  }
  timing = false;
  delay?.disable();
  gcObserver.disconnect();
  const sorted = [...handled].sort((a, b) => a - b);
  const ms = (ns: number | undefined) => (ns ?? Number.NaN) / 1e6;
  process.stderr.write(`edge-timing ${JSON.stringify({
    requests: sorted.length,
    handledP50: quantile(sorted, 0.5), handledP99: quantile(sorted, 0.99), handledMax: sorted[sorted.length - 1],
    loopDelayP99: ms(delay?.percentile(99)), loopDelayMax: ms(delay?.max),
    gcPauses: pauses.length, gcPauseMax: Math.max(0, ...pauses), gcPauseSum: pauses.reduce((a, b) => a + b, 0),
  })}\n`);
});
