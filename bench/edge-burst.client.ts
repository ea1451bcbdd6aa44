/**
 * The client side of the burst figure, in its own process so its CPU is not the edge's and is
 * reported apart. `argv[2]` is JSON: { url, token?, tool, sessions, rounds }. It opens every
 * session (initialize, initialized) and one keep-alive socket per session before anything is
 * timed, answers "ready" after a warm-up round, waits for "go" on stdin, then runs the measured
 * rounds: each round writes every session's pre-built request, back to back, and times each
 * call from its own write to the last byte of its answer. Prints the figures as JSON.
 */
import * as net from 'node:net';
import { NOOP_ARGUMENTS } from './catalog.fixture';
import { latencyStats } from './support/load.runner';
import { loadAgent, McpHttpSession, parseAnswer } from './support/mcp-http.client';

interface Options { url: string; token?: string; tool: string; sessions: number; rounds: number }

const OPEN_CONCURRENCY = 16;
const PROTOCOL_VERSION = '2025-06-18';

/** One session's socket: the request it sends, and the answer it is reading. */
class BurstSocket {
  private chunks: Buffer[] = [];
  private length = 0;
  private sentAt = 0;
  private sent = 0;
  private id = 0;
  private done?: (answer: { ms: number; error?: string }) => void;

  /** `requests` holds one pre-built request per round (each with its own JSON-RPC id). */
  private constructor(private readonly socket: net.Socket, private readonly requests: Array<{ id: number; bytes: Buffer }>) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('error', (error) => this.finish(error.message));
    socket.on('close', () => this.finish('the server closed the connection'));
  }

  static connect(url: URL, requests: Array<{ id: number; bytes: Buffer }>): Promise<BurstSocket> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(url.port), url.hostname, () => resolve(new BurstSocket(socket, requests)));
      socket.once('error', reject);
    });
  }

  send(): Promise<{ ms: number; error?: string }> {
    this.chunks = [];
    this.length = 0;
    const request = this.requests[this.sent % this.requests.length];
    this.sent += 1;
    this.id = request.id;
    return new Promise((resolve) => {
      this.done = resolve;
      this.sentAt = performance.now();
      this.socket.write(request.bytes);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private read(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
    const text = Buffer.concat(this.chunks, this.length).toString('latin1');
    const headEnd = text.indexOf('\r\n\r\n');
    if (headEnd < 0) return;
    const head = text.slice(0, headEnd).toLowerCase();
    const declared = /\r\ncontent-length: *(\d+)/.exec(head);
    const complete = declared ? this.length - headEnd - 4 >= Number(declared[1]) : text.endsWith('\r\n0\r\n\r\n');
    if (!complete) return;
    const ms = performance.now() - this.sentAt;
    this.finish(this.check(head, text.slice(headEnd + 4), declared !== null), ms);
  }

  /** The answer's JSON-RPC error or tool error, if any (read after the clock stopped). */
  private check(head: string, rawBody: string, plain: boolean): string | undefined {
    const status = Number(/^http\/1\.1 (\d+)/.exec(head)?.[1] ?? 0);
    const body = Buffer.from(plain ? rawBody : dechunk(rawBody), 'latin1').toString('utf8');
    const type = /\r\ncontent-type: *([^\r]*)/.exec(head)?.[1] ?? '';
    try {
      const answer = parseAnswer({ status, headers: { 'content-type': type }, body }, this.id);
      if (answer.error || answer.result?.isError === true) return JSON.stringify(answer.error ?? answer.result);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  }

  private finish(error: string | undefined, ms = performance.now() - this.sentAt): void {
    const done = this.done;
    this.done = undefined;
    done?.({ ms, error });
  }
}

function dechunk(raw: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    const size = parseInt(raw.slice(at, lineEnd), 16);
    if (!(size > 0)) return out;
    out += raw.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

function rawRequest(url: URL, session: McpHttpSession, token: string | undefined, body: string): Buffer {
  const headers = [
    `POST ${url.pathname} HTTP/1.1`, `host: ${url.host}`, 'connection: keep-alive', 'content-type: application/json',
    'accept: application/json, text/event-stream', `mcp-session-id: ${session.id}`, `mcp-protocol-version: ${PROTOCOL_VERSION}`,
    ...(token ? [`authorization: Bearer ${token}`] : []), `content-length: ${Buffer.byteLength(body)}`,
  ];
  return Buffer.from(`${headers.join('\r\n')}\r\n\r\n${body}`);
}

async function openAll(options: Options): Promise<BurstSocket[]> {
  const url = new URL(options.url);
  const sockets: BurstSocket[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: OPEN_CONCURRENCY }, async () => {
    while (next < options.sessions) {
      next += 1;
      const session = await McpHttpSession.open(options.url, options.token);
      const requests = Array.from({ length: options.rounds + 1 }, (_, round) => {
        const id = 1_000 + round;
        const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: options.tool, arguments: NOOP_ARGUMENTS } });
        return { id, bytes: rawRequest(url, session, options.token, body) };
      });
      sockets.push(await BurstSocket.connect(url, requests));
    }
  }));
  loadAgent.destroy();
  return sockets;
}

/** One round: every socket writes its request, then every answer is awaited. */
async function burst(sockets: BurstSocket[]): Promise<{ times: number[]; errors: string[]; sendSpreadMs: number }> {
  const started = performance.now();
  const answers = sockets.map((s) => s.send());
  const sendSpreadMs = performance.now() - started;
  const settled = await Promise.all(answers);
  return { times: settled.map((a) => a.ms), errors: settled.flatMap((a) => (a.error ? [a.error] : [])), sendSpreadMs };
}

function waitForGo(): Promise<void> {
  return new Promise((resolve) => {
    process.stdin.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('go')) resolve();
    });
  });
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2]) as Options;
  const sockets = await openAll(options);
  await burst(sockets);
  process.stdout.write('ready\n');
  await waitForGo();
  const cpuBefore = process.cpuUsage();
  const times: number[] = [];
  const errors: string[] = [];
  const spreads: number[] = [];
  for (let round = 0; round < options.rounds; round += 1) {
    const result = await burst(sockets);
    times.push(...result.times);
    errors.push(...result.errors);
    spreads.push(result.sendSpreadMs);
  }
  const cpu = process.cpuUsage(cpuBefore);
  for (const socket of sockets) socket.close();
  const figures = {
    sessions: sockets.length, latency: latencyStats(times), max: Math.max(...times), errors: errors.length, firstError: errors[0],
    clientCpuMsPerCall: (cpu.user + cpu.system) / 1000 / Math.max(1, times.length), sendSpreadMs: Math.max(...spreads),
  };
  process.stdout.write(`result ${JSON.stringify(figures)}\n`);
  process.stdin.destroy();
}

main().catch((error: unknown) => {
  process.stderr.write(`burst client failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
