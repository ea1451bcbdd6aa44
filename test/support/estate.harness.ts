import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { issueDevToken, type TokenClaims } from '@estate/platform';
import { REPO_ROOT } from './infra';

export const TEST_SECRET = 'estate-test-secret-0123456789abcdef';

export const ADMIN: TokenClaims = { sub: 'platform-admin', scope: 'estate:admin estate:publish estate:audit', clearance: 'restricted' };

export function token(claims: TokenClaims): Promise<string> {
  return issueDevToken(TEST_SECRET, claims);
}

/** Polls until `probe` returns a value other than undefined, or fails with the last state seen. */
export async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 15000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function http(method: string, url: string, tokenValue: string | undefined, body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(tokenValue ? { authorization: `Bearer ${tokenValue}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

export interface McpSession {
  client: Client;
  listChanged: number[];
  close(): Promise<void>;
}

/** An official SDK client session over real HTTP, counting list_changed notifications. */
export async function connect(mcpUrl: string, tokenValue: string): Promise<McpSession> {
  const client = new Client({ name: 'estate-e2e', version: '1.0.0' });
  const listChanged: number[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    listChanged.push(Date.now());
  });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${tokenValue}` } },
  });
  await client.connect(transport);
  return { client, listChanged, close: () => client.close() };
}

export interface ChildService {
  process: ChildProcess;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Runs a built entry point (dist/…/main.js) as a child process with the given environment.
 * `detached` gives it a process group of its own, so a test can kill it with everything it spawned.
 */
export function spawnService(entry: string, env: Record<string, string>, options: { detached?: boolean } = {}): ChildService {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'dist', entry)], {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached,
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  let stopping = false;
  const exited = new Promise<void>((resolve) => child.once('exit', (code, signal) => {
    // A service that ends by itself mid-test leaves its last words where a failing run shows them.
    if (!stopping) process.stderr.write(`${entry} (pid ${child.pid}) exited by itself (${code ?? signal}); its last output:\n${output.slice(-4000)}\n`);
    resolve();
  }));
  return {
    process: child,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
