import { ErrorCode, McpError, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { signalCancellation } from './call.cancellation';
import { callDirect, type DirectCallTransport } from './direct-call';

/** An in-memory transport: records what is sent, and lets the test answer as the upstream. */
class MemoryTransport implements DirectCallTransport {
  readonly sent: JSONRPCMessage[] = [];
  readonly waiting = new Map<RequestId, (response: JSONRPCMessage | Error) => void>();
  failSend?: Error;

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.failSend) throw this.failSend;
    this.sent.push(message);
  }

  expect(id: RequestId, settle: (response: JSONRPCMessage | Error) => void): void {
    this.waiting.set(id, settle);
  }

  forget(id: RequestId): void {
    this.waiting.delete(id);
  }

  answer(body: Record<string, unknown>): void {
    const request = this.sent.find((m) => 'method' in m && m.method === 'tools/call') as { id: RequestId };
    this.waiting.get(request.id)?.({ jsonrpc: '2.0', id: request.id, ...body } as JSONRPCMessage);
  }
}

const PARAMS = { name: 'lookup', arguments: { q: 'x' } };

describe('callDirect', () => {
  it('sends one tools/call and resolves with the parsed result, the SDK schema\'s defaults filled in', async () => {
    const transport = new MemoryTransport();
    const pending = callDirect(transport, PARAMS, 1000);
    await Promise.resolve();
    expect(transport.sent).toEqual([{ jsonrpc: '2.0', id: expect.any(Number), method: 'tools/call', params: PARAMS }]);
    transport.answer({ result: { structuredContent: { ok: true } } });
    await expect(pending).resolves.toEqual({ content: [], structuredContent: { ok: true } });
    expect(transport.waiting.size).toBe(0);
  });

  it('hands back a result of text blocks as the SDK schema would, and still refuses one the schema refuses', async () => {
    const { CallToolResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const results = [
      { content: [{ type: 'text', text: 'ok' }] },
      { content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }], isError: true },
      { content: [{ type: 'text', text: 'ok', annotations: { priority: 1 } }], _meta: { x: 1 } },
      { content: [] },
    ];
    for (const result of results) {
      const transport = new MemoryTransport();
      const pending = callDirect(transport, PARAMS, 1000);
      await Promise.resolve();
      transport.answer({ result });
      await expect(pending).resolves.toEqual(CallToolResultSchema.parse(result));
    }
    const transport = new MemoryTransport();
    const pending = callDirect(transport, PARAMS, 1000);
    await Promise.resolve();
    transport.answer({ result: { content: [{ type: 'text', text: 7 }] } });
    await expect(pending).rejects.toThrow();
  });

  it('gives every call its own id, above any the SDK client uses', async () => {
    const transport = new MemoryTransport();
    void callDirect(transport, PARAMS, 50).catch(() => undefined);
    void callDirect(transport, PARAMS, 50).catch(() => undefined);
    await Promise.resolve();
    const ids = transport.sent.map((m) => (m as { id: number }).id);
    expect(new Set(ids).size).toBe(2);
    expect(Math.min(...ids)).toBeGreaterThanOrEqual(1_000_000_000);
  });

  it('turns an error answer into the McpError the SDK client would throw', async () => {
    const transport = new MemoryTransport();
    const pending = callDirect(transport, PARAMS, 1000);
    await Promise.resolve();
    transport.answer({ error: { code: -32602, message: 'bad q', data: { path: '/q' } } });
    await expect(pending).rejects.toMatchObject({ code: -32602, data: { path: '/q' } });
    await expect(pending).rejects.toBeInstanceOf(McpError);
  });

  it('refuses a result that is not a CallToolResult', async () => {
    const transport = new MemoryTransport();
    const pending = callDirect(transport, PARAMS, 1000);
    await Promise.resolve();
    transport.answer({ result: { content: 'not a list' } });
    await expect(pending).rejects.toThrow();
    await expect(pending).rejects.not.toBeInstanceOf(McpError);
  });

  it('on timeout tells the upstream the call is cancelled and fails with RequestTimeout, and forgets the call', async () => {
    const transport = new MemoryTransport();
    const pending = callDirect(transport, PARAMS, 20);
    await expect(pending).rejects.toMatchObject({ code: ErrorCode.RequestTimeout, data: { timeout: 20 } });
    const [call, cancelled] = transport.sent as Array<{ id?: number; method: string; params: Record<string, unknown> }>;
    expect(cancelled).toMatchObject({ method: 'notifications/cancelled', params: { requestId: call.id, reason: expect.stringContaining('Request timed out') } });
    expect(transport.waiting.size).toBe(0);
  });

  it('on abort cancels upstream with the abort reason, and an aborted signal sends nothing', async () => {
    const transport = new MemoryTransport();
    const controller = new AbortController();
    const pending = callDirect(transport, PARAMS, 1000, signalCancellation(controller.signal));
    await Promise.resolve();
    controller.abort('client cancelled');
    await expect(pending).rejects.toMatchObject({ code: ErrorCode.RequestTimeout, message: expect.stringContaining('client cancelled') });
    expect(transport.sent[1]).toMatchObject({ method: 'notifications/cancelled', params: { reason: 'client cancelled' } });
    const before = transport.sent.length;
    await expect(callDirect(transport, PARAMS, 1000, signalCancellation(controller.signal))).rejects.toBe('client cancelled');
    expect(transport.sent.length).toBe(before);
  });

  it('fails with the transport\'s own error when the request cannot be sent, or when its connection closes', async () => {
    const transport = new MemoryTransport();
    transport.failSend = new Error('connect ECONNREFUSED');
    await expect(callDirect(transport, PARAMS, 1000)).rejects.toThrow('connect ECONNREFUSED');
    transport.failSend = undefined;
    const pending = callDirect(transport, PARAMS, 1000);
    await Promise.resolve();
    for (const settle of transport.waiting.values()) settle(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
    await expect(pending).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
  });
});
