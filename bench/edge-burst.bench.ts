import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT, type BenchChild } from './support/child-process.launcher';
import type { LatencyStats } from './support/load.runner';

/** Issue 10: this many sessions each send one tools/call at the same moment. */
export const BURST_SESSIONS = 1_000;
const ROUNDS = 3;

export interface BurstFigures {
  sessions: number;
  /** Every call of the measured rounds, from its send to its answer. */
  latency: LatencyStats;
  errors: number;
  firstError?: string;
  /** Server CPU ms per call over the measured rounds (every process on the path). */
  cpuMs: number;
  /** The client's own CPU ms per call over the measured rounds (its process alone). */
  clientCpuMsPerCall: number;
  /** The longest time the client took to write one round's requests, first to last. */
  sendSpreadMs: number;
  /** The slowest call. */
  max: number;
  /** Wall clock (epoch ms) of the measured rounds, to cut a CPU profile to them. */
  measuredFrom: number;
  measuredTo: number;
}

/** Server CPU ms so far of every process on the path. */
function cpuOf(processes: BenchChild[]): number {
  return processes.reduce((sum, p) => sum + p.cpuMs(), 0);
}

/**
 * `BURST_SESSIONS` sessions, then rounds in which every one of them calls the zero-work tool at
 * once (one round first to warm up). `tool` is the name on this path (`noop` upstream, `bench.noop` at the edge).
 * The client runs in its own process (bench/edge-burst.client.ts) with every session and its
 * keep-alive socket open before the first round, so the figure is the servers', not the client's
 * connection set-up; the client's own CPU per call is reported beside it.
 */
export async function measureBurst(url: string, token: string | undefined, tool: string, processes: BenchChild[]): Promise<BurstFigures> {
  const options = JSON.stringify({ url, token, tool, sessions: BURST_SESSIONS, rounds: ROUNDS });
  const client = spawn(process.execPath, ['-r', '@swc-node/register', path.join(__dirname, 'edge-burst.client.ts'), options], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  let cpuBefore = 0;
  let measuredFrom = 0;
  const result = await new Promise<ClientFigures>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the burst client did not finish:\n${output.slice(-2000)}`)), 300_000);
    client.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (cpuBefore === 0 && output.includes('ready\n')) {
        cpuBefore = cpuOf(processes);
        measuredFrom = Date.now();
        client.stdin.write('go\n');
      }
      const line = /^result (.*)$/m.exec(output);
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line[1]) as ClientFigures);
      }
    });
    client.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    client.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the burst client exited with ${code}:\n${output.slice(-2000)}`));
    });
  });
  const measuredTo = Date.now();
  const cpuMs = (cpuOf(processes) - cpuBefore) / Math.max(1, result.latency.samples);
  client.kill();
  return { ...result, cpuMs, measuredFrom, measuredTo };
}

interface ClientFigures {
  sessions: number;
  latency: LatencyStats;
  max: number;
  errors: number;
  firstError?: string;
  clientCpuMsPerCall: number;
  sendSpreadMs: number;
}
