import { NOOP_ARGUMENTS } from './catalog.fixture';
import type { BenchChild } from './support/child-process.launcher';
import { latencyStats, type LatencyStats } from './support/load.runner';
import { McpHttpSession } from './support/mcp-http.client';

/** Issue 10: this many sessions each send one tools/call at the same moment. */
export const BURST_SESSIONS = 1_000;
const ROUNDS = 3;
const OPEN_CONCURRENCY = 16;

export interface BurstFigures {
  sessions: number;
  /** Every call of the measured rounds, from its send to its answer. */
  latency: LatencyStats;
  errors: number;
  firstError?: string;
  /** Server CPU ms per call over the measured rounds (every process on the path). */
  cpuMs: number;
}

async function openSessions(url: string, token: string | undefined, count: number): Promise<McpHttpSession[]> {
  const sessions: McpHttpSession[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: OPEN_CONCURRENCY }, async () => {
    while (next < count) {
      next += 1;
      sessions.push(await McpHttpSession.open(url, token));
    }
  }));
  return sessions;
}

/**
 * `BURST_SESSIONS` sessions, then rounds in which every one of them calls the zero-work tool at
 * once (one round first to warm up). `tool` is the name on this path (`noop` upstream, `bench.noop` at the edge).
 */
export async function measureBurst(url: string, token: string | undefined, tool: string, processes: BenchChild[]): Promise<BurstFigures> {
  const sessions = await openSessions(url, token, BURST_SESSIONS);
  const times: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const cpuNow = () => processes.reduce((sum, p) => sum + p.cpuMs(), 0);
  let cpuBefore = 0;
  for (let round = 0; round <= ROUNDS; round += 1) {
    if (round === 1) cpuBefore = cpuNow();
    await Promise.all(sessions.map(async (session) => {
      const start = performance.now();
      try {
        await session.expect('tools/call', { name: tool, arguments: NOOP_ARGUMENTS });
        if (round > 0) times.push(performance.now() - start);
      } catch (error) {
        if (round === 0) return;
        errors += 1;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
    }));
  }
  const calls = sessions.length * ROUNDS;
  return { sessions: sessions.length, latency: latencyStats(times), errors, firstError, cpuMs: (cpuNow() - cpuBefore) / Math.max(1, calls) };
}
