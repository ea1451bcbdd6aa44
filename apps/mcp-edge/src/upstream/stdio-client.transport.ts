import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { responseTooLarge } from './http-client.transport';

const NEWLINE = 0x0a;
/** How long a child gets after stdin closes, then after SIGTERM, before the next signal (the SDK's own steps). */
const STOP_STEP_MS = 2000;

/**
 * A stdio upstream whose stdout is read one line (one message) at a time, up to the same limit as
 * an HTTP upstream's body or SSE event. A line past it is not buffered further: the requests in
 * flight get the edge's "response too large" answer and the process is stopped (the rest of its
 * stream cannot be framed any more). The SDK's transport would buffer up to its own 10 MB first.
 */
export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The child's stderr, readable before start (an unread pipe stalls the child). */
  readonly stderr = new PassThrough();
  private child?: ChildProcess;
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private overflowed = false;
  private readonly inFlight = new Set<RequestId>();

  constructor(private readonly command: string, private readonly args: string[], private readonly maxMessageBytes: number) {}

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.command, this.args, { env: getDefaultEnvironment(), stdio: ['pipe', 'pipe', 'pipe'], shell: false });
      this.child = child;
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on('spawn', () => resolve());
      child.on('close', () => {
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.read(chunk));
      child.stderr?.pipe(this.stderr);
    });
  }

  private read(chunk: Buffer): void {
    if (this.overflowed) return;
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      if (!this.take(chunk.subarray(start, end))) return;
      const line = Buffer.concat(this.partial).toString('utf8').replace(/\r$/, '');
      this.partial = [];
      this.partialBytes = 0;
      start = end + 1;
      this.deliver(line);
    }
    this.take(chunk.subarray(start));
  }

  /** Keeps part of the current line; false (and the overflow handled) when the line passes the limit. */
  private take(part: Buffer): boolean {
    this.partialBytes += part.length;
    if (this.partialBytes > this.maxMessageBytes) {
      this.overflow();
      return false;
    }
    if (part.length > 0) this.partial.push(part);
    return true;
  }

  private deliver(line: string): void {
    if (line === '') return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      this.onerror?.(error as Error);
      return;
    }
    if ('id' in message && message.id !== undefined && ('result' in message || 'error' in message)) this.inFlight.delete(message.id);
    this.onmessage?.(message);
  }

  private overflow(): void {
    this.overflowed = true;
    this.partial = [];
    this.onerror?.(new Error(`an upstream stdout line passed the edge's limit of ${this.maxMessageBytes} bytes; the process was stopped`));
    for (const id of this.inFlight) this.onmessage?.(responseTooLarge(id, this.maxMessageBytes));
    this.inFlight.clear();
    void this.close();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin) throw new Error('Not connected');
    if ('method' in message && 'id' in message) this.inFlight.add(message.id);
    if (!stdin.write(serializeMessage(message))) await new Promise((resolve) => stdin.once('drain', resolve));
  }

  /** Closes stdin, then asks with SIGTERM, then SIGKILL, each after a short wait (as the SDK's transport does). */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const wait = () => Promise.race([closed, new Promise((resolve) => setTimeout(resolve, STOP_STEP_MS).unref())]);
    child.stdin?.end();
    await wait();
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await wait();
    }
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
