import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@estate/platform';
import { inspectIncomingText, negotiateMessageEra, parseJson, type MessageDecision } from '@estate/protocol';
import { pinsFromMeta } from '../mcp/tool-call.pipeline';
import type { EdgeSession } from '../sessions/edge-session';
import type { StdioStatelessHandler } from './stdio-stateless.handler';

/**
 * Reads stdin line by line and applies the seeds' rules before the SDK sees anything: garbage
 * gets -32700, requests out of lifecycle order get -32600, bad notifications are dropped. The SDK
 * transport is attached to an input that never speaks; admitted messages are handed to it here.
 * On 2025-03-26 a batch is admitted item by item and answered line by line. A message that
 * declares its version in `_meta` (2026-07-28) is no part of the session and goes to `stateless`.
 */
export class StdioGate {
  constructor(
    private readonly session: EdgeSession,
    private readonly transport: StdioServerTransport,
    private readonly logger: Logger,
    private readonly stateless?: StdioStatelessHandler,
  ) {}

  /** Resolves when the input ends. */
  run(input: Readable): Promise<void> {
    const lines = createInterface({ input, crlfDelay: Infinity });
    lines.on('line', (line) => this.receive(line));
    return new Promise((resolve) => lines.once('close', resolve));
  }

  private receive(line: string): void {
    if (line.trim() === '') return;
    if (this.stateless) {
      const parsed = parseJson(line);
      const era = parsed.ok ? negotiateMessageEra(parsed.value) : undefined;
      if (era !== undefined && era.era !== 'session') return this.stateless.handle(era);
      if (parsed.ok && this.stateless.claims(parsed.value)) return this.stateless.cancelled(parsed.value);
    }
    const decision = inspectIncomingText(this.session.lifecycle, line);
    if (decision.action === 'batch') decision.entries.forEach((entry) => this.apply(entry));
    else this.apply(decision);
  }

  private apply(decision: MessageDecision): void {
    switch (decision.action) {
      case 'reply':
        void this.transport.send(decision.reply as JSONRPCMessage).catch((error: unknown) => this.logger.warn({ err: error }, 'could not answer on stdout'));
        return;
      case 'drop':
        this.logger.debug({ reason: decision.reason }, 'dropped an incoming message');
        return;
      case 'process': {
        let message = decision.message;
        if (decision.kind === 'request' && decision.message.method === 'initialize') {
          this.session.pins = pinsFromMeta(decision.message.params?._meta);
          message = this.session.acceptInitialize(decision.message);
        }
        this.transport.onmessage?.(message as JSONRPCMessage);
      }
    }
  }
}
