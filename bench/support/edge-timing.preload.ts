/**
 * Preloaded into an edge child (`-r @swc-node/register -r bench/support/edge-timing.preload.ts`)
 * by bench/edge-list.anatomy.ts and bench/edge-latency.compare.ts. The first SIGUSR2 starts
 * timing, the second prints one line, `edge-timing {json}`, to stderr: the time from each HTTP
 * request's 'request' event to its response's 'finish' (the edge's own share), the event loop's
 * delay, and the GC pauses, over the window. A request that goes upstream (tools/call) is split
 * in three: the edge's work up to its write to the upstream, the wait for the upstream's first
 * bytes, and the edge's work from those bytes to 'finish'. Requests during which the edge wrote to
 * Kafka (a call-record flush, a fetch), ran the call spool's group commit or paused for GC are
 * counted apart (and left out of `handledQuiet`), to show what may set the p99. A long request is
 * likelier to overlap a periodic event whatever its cause, so a touched request's slowness is only
 * a hint; the count says how many requests such an event can reach. The split assumes one request
 * at a time (the sequential figures). Bench-only: nothing in apps/ loads it.
 */
import * as http from 'node:http';
import * as net from 'node:net';
import { createRequire } from 'node:module';
import { monitorEventLoopDelay, performance, PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';

interface Timed {
  started: number;
  finished?: number;
  wroteAt?: number;
  answeredAt?: number;
  kafka?: boolean;
  /** The call spool's group commit (an fdatasync on the thread pool) began or completed during it. */
  spoolSync?: boolean;
}

const requests: Timed[] = [];
const pauses: Array<{ from: number; to: number }> = [];
let current: Timed | undefined;
let timing = false;
let delay: IntervalHistogram | undefined;
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) pauses.push({ from: entry.startTime, to: entry.startTime + entry.duration });
});

const emit = http.Server.prototype.emit as (this: http.Server, event: string, ...args: unknown[]) => boolean;
http.Server.prototype.emit = function timedEmit(this: http.Server, event: string, ...args: unknown[]): boolean {
  if (timing && event === 'request') {
    const timed: Timed = { started: performance.now() };
    current = timed;
    requests.push(timed);
    (args[1] as http.ServerResponse).once('finish', () => {
      timed.finished = performance.now();
      if (current === timed) current = undefined;
    });
  }
  return emit.call(this, event, ...args);
} as typeof http.Server.prototype.emit;

/** Broker ports: a record flush or a fetch during a call is not the call's upstream hop. */
const kafkaPorts = new Set((process.env.KAFKA_BROKERS ?? '').split(',').map((b) => Number(b.split(':').pop())));
const isKafka = (socket: net.Socket) => kafkaPorts.has(socket.remotePort ?? 0);
/** Outbound sockets to the upstream only (an accepted socket has its server). */
const isUpstream = (socket: net.Socket) => !(socket as net.Socket & { server?: unknown }).server && !isKafka(socket);

const write = net.Socket.prototype.write as (this: net.Socket, ...args: unknown[]) => boolean;
net.Socket.prototype.write = function timedWrite(this: net.Socket, ...args: unknown[]): boolean {
  if (timing && current) {
    if (isKafka(this)) current.kafka = true;
    else if (current.wroteAt === undefined && isUpstream(this)) current.wroteAt = performance.now();
  }
  return write.apply(this, args);
} as typeof net.Socket.prototype.write;
const socketEmit = net.Socket.prototype.emit as (this: net.Socket, event: string | symbol, ...args: unknown[]) => boolean;
net.Socket.prototype.emit = function timedSocketEmit(this: net.Socket, event: string | symbol, ...args: unknown[]): boolean {
  if (timing && event === 'data' && current) {
    if (isKafka(this)) current.kafka = true;
    else if (current.wroteAt !== undefined && current.answeredAt === undefined && isUpstream(this)) current.answeredAt = performance.now();
  }
  return socketEmit.call(this, event, ...args);
} as typeof net.Socket.prototype.emit;

/** node:fs itself: an `import * as` binding is a copy, and patching it would not reach the edge's spool. */
const fs = createRequire(__filename)('node:fs') as typeof import('node:fs');
const fdatasync = fs.fdatasync;
fs.fdatasync = function timedSync(fd: number, callback: (error: NodeJS.ErrnoException | null) => void): void {
  if (timing && current) current.spoolSync = true;
  fdatasync(fd, (error) => {
    if (timing && current) current.spoolSync = true;
    callback(error);
  });
} as typeof fs.fdatasync;

function quantile(sorted: number[], q: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

function stats(name: string, values: number[]): Record<string, number> {
  if (values.length === 0) return {};
  const sorted = [...values].sort((a, b) => a - b);
  return { [`${name}P50`]: quantile(sorted, 0.5), [`${name}P99`]: quantile(sorted, 0.99) };
}

function report(): Record<string, number> {
  const done = requests.filter((r) => r.finished !== undefined) as Array<Timed & { finished: number }>;
  const gc = (r: Timed & { finished: number }) => pauses.some((p) => p.from < r.finished && p.to > r.started);
  const split = done.filter((r) => r.wroteAt !== undefined && r.answeredAt !== undefined) as Array<Timed & { finished: number; wroteAt: number; answeredAt: number }>;
  const quiet = done.filter((r) => !r.kafka && !r.spoolSync && !gc(r));
  const sorted = done.map((r) => r.finished - r.started).sort((a, b) => a - b);
  return {
    requests: done.length,
    handledP50: quantile(sorted, 0.5), handledP99: quantile(sorted, 0.99), handledMax: sorted[sorted.length - 1],
    ...stats('beforeUpstream', split.map((r) => r.wroteAt - r.started)),
    ...stats('upstreamWait', split.map((r) => r.answeredAt - r.wroteAt)),
    ...stats('afterUpstream', split.map((r) => r.finished - r.answeredAt)),
    withKafkaIo: done.filter((r) => r.kafka).length,
    withGcPause: done.filter(gc).length,
    withSpoolSync: done.filter((r) => r.spoolSync).length,
    ...stats('handledSpoolSync', done.filter((r) => r.spoolSync).map((r) => r.finished - r.started)),
    ...stats('handledQuiet', quiet.map((r) => r.finished - r.started)),
    ...stats('handledKafka', done.filter((r) => r.kafka).map((r) => r.finished - r.started)),
    loopDelayP99: (delay?.percentile(99) ?? Number.NaN) / 1e6, loopDelayMax: (delay?.max ?? Number.NaN) / 1e6,
    gcPauses: pauses.length, gcPauseMax: Math.max(0, ...pauses.map((p) => p.to - p.from)), gcPauseSum: pauses.reduce((a, p) => a + p.to - p.from, 0),
  };
}

process.on('SIGUSR2', () => {
  if (!timing) {
    timing = true;
    requests.length = 0;
    pauses.length = 0;
    delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    gcObserver.observe({ entryTypes: ['gc'] });
    return;
  }
  timing = false;
  delay?.disable();
  // Entries of the last pauses are delivered a moment later.
  setTimeout(() => {
    gcObserver.disconnect();
    process.stderr.write(`edge-timing ${JSON.stringify(report())}\n`);
  }, 50);
});
