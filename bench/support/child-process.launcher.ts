import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
/** USER_HZ: Linux reports process CPU time in ticks of 1/100 s on every mainstream architecture. */
const CLOCK_TICKS = 100;

/** A node child process the bench started; `stop` ends exactly this process. */
export interface BenchChild {
  pid: number;
  output(): string;
  /** Resident set size right now, from /proc (the child's own memory, not the bench's). */
  rssMb(): number;
  /** CPU time (user + system) the child has used so far, from /proc; 10 ms resolution. */
  cpuMs(): number;
  stop(): Promise<void>;
}

export interface ChildOptions {
  args: string[];
  env?: Record<string, string>;
  /** Resolves with the child's announced value once its output contains it. */
  ready?: (output: string) => string | undefined;
  readyTimeoutMs?: number;
}

/** Starts `node <args>` from the repository root and waits for `ready` (if given). */
export async function startChild(options: ChildOptions): Promise<{ child: BenchChild; announced: string }> {
  const proc: ChildProcess = spawn(process.execPath, options.args, {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const announced = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${options.args.join(' ')} did not become ready:\n${output.slice(-2000)}`)), options.readyTimeoutMs ?? 60_000);
    const check = (chunk: Buffer) => {
      output += chunk.toString();
      const value = options.ready ? options.ready(output) : '';
      if (value !== undefined) {
        clearTimeout(timer);
        resolve(value);
      }
    };
    proc.stdout?.on('data', check);
    proc.stderr?.on('data', check);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${options.args.join(' ')} exited with ${code}:\n${output.slice(-2000)}`));
    });
    if (!options.ready) check(Buffer.alloc(0));
  });
  const pid = proc.pid ?? 0;
  return {
    announced,
    child: {
      pid,
      output: () => output,
      rssMb: () => {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 'NaN');
        return kb / 1024;
      },
      cpuMs: () => {
        // Fields after the command name (which may contain spaces); utime and stime are the 12th and 13th.
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
        return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
      },
      stop: async () => {
        if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      },
    },
  };
}

/** The URL from a `{"url": …}` line the bench's own servers print when they listen. */
export function announcedUrl(output: string): string | undefined {
  const line = output.split('\n').find((l) => l.startsWith('{"url"'));
  return line ? (JSON.parse(line) as { url: string }).url : undefined;
}

/** Starts one of the bench's TypeScript servers (bench/*.server.ts) through @swc-node/register. */
export async function startBenchServer(file: string, env: Record<string, string> = {}): Promise<{ child: BenchChild; url: string }> {
  const { child, announced } = await startChild({ args: ['-r', '@swc-node/register', path.join('bench', file)], env, ready: announcedUrl });
  return { child, url: announced };
}

/** Polls `probe` every 50 ms until it yields a value, for at most `timeoutMs`. */
export async function waitUntil<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}
