import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { WireError } from '../mcp/wire-error';
import { CallCancelled, type CallCancellation } from '../upstream/call.cancellation';
import { recordDirectHandlers, SessionFastPath, type DirectHandler, type SessionSide } from './session.fast-path';

/** A server with tools/call and tools/list handlers, and what the fast path sent for it. */
function setUp(call: (params: Record<string, unknown> | undefined, signal: AbortSignal) => Promise<unknown>, side?: SessionSide, readSignalLate = false) {
  const server = new Server({ name: 't', version: '0' }, { capabilities: { tools: {} } });
  const handlers = new Map<string, DirectHandler>();
  recordDirectHandlers(server, handlers);
  server.setRequestHandler(ListToolsRequestSchema, async (request) => ({ tools: [], nextCursor: request.params?.cursor }));
  // readSignalLate: the handler is given a view that reads `extra.signal` only when it is used.
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => call(request.params, readSignalLate ? lateSignal(extra) : extra.signal) as never);
  const sent: JSONRPCMessage[] = [];
  const fast = new SessionFastPath(server, handlers, async (message) => void sent.push(message), 'session-1', side);
  return { fast, sent };
}

/** A stand-in signal whose every property reads the handler's real signal at that moment. */
function lateSignal(extra: { signal: AbortSignal }): AbortSignal {
  return {
    get aborted() {
      return extra.signal.aborted;
    },
    get reason() {
      return extra.signal.reason as unknown;
    },
  } as AbortSignal;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('SessionFastPath', () => {
  it('answers tools/list and tools/call with the registered handlers, passing only the keys the SDK schema keeps', async () => {
    let seen: Record<string, unknown> | undefined;
    const { fast, sent } = setUp(async (params) => ((seen = params), { content: [{ type: 'text', text: 'ok' }] }));
    expect(fast.take({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'c' } }, {})).toBe(true);
    expect(fast.take({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'a', arguments: { x: 1 }, extra: true } }, {})).toBe(true);
    await settle();
    expect(sent).toEqual([
      { jsonrpc: '2.0', id: 1, result: { tools: [], nextCursor: 'c' } },
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'ok' }] } },
    ]);
    expect(seen).toEqual({ name: 'a', arguments: { x: 1 } });
  });

  it('answers a handler error as the SDK does: its code, message and data', async () => {
    const { fast, sent } = setUp(async () => {
      throw new WireError(-32601, 'Unknown tool: a');
    });
    fast.take({ jsonrpc: '2.0', id: 'r', method: 'tools/call', params: { name: 'a' } }, {});
    await settle();
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 'r', error: { code: -32601, message: 'Unknown tool: a' } }]);
  });

  it('leaves other methods, task requests and odd params to the SDK server', () => {
    const { fast } = setUp(async () => ({ content: [] }));
    expect(fast.take({ jsonrpc: '2.0', id: 1, method: 'ping' }, {})).toBe(false);
    expect(fast.take({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'a', task: {} } }, {})).toBe(false);
    expect(fast.take({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'a', arguments: [] } }, {})).toBe(false);
    expect(fast.take({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'a', _meta: { progressToken: 1.5 } } }, {})).toBe(false);
    expect(fast.take({ jsonrpc: '2.0', id: 5, method: 'tools/list', params: { cursor: 7 } }, {})).toBe(false);
  });

  it('aborts an in-flight call on notifications/cancelled and does not answer it, still passing the notification on', async () => {
    let aborted: unknown;
    const { fast, sent } = setUp((_params, signal) => new Promise((resolve) => signal.addEventListener('abort', () => {
      aborted = signal.reason;
      resolve({ content: [] });
    })));
    fast.take({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'slow' } }, {});
    expect(fast.take({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9, reason: 'gave up' } }, {})).toBe(false);
    await settle();
    expect(aborted).toEqual(new CallCancelled('client', 'gave up'));
    expect(sent).toEqual([]);
  });

  it('hands a handler that looks at its signal only after a cancel an already aborted signal, with the reason', async () => {
    let seen: { aborted: boolean; reason: unknown } | undefined;
    let release: () => void = () => undefined;
    const { fast, sent } = setUp(async (_params, signalOf) => {
      await new Promise<void>((resolve) => (release = resolve));
      seen = { aborted: signalOf.aborted, reason: signalOf.reason };
      return { content: [] };
    }, undefined, true);
    fast.take({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'late' } }, {});
    fast.take({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4, reason: 'too slow' } }, {});
    release();
    await settle();
    expect(seen).toEqual({ aborted: true, reason: new CallCancelled('client', 'too slow') });
    expect(sent).toEqual([]);
  });

  it('tells a call listening on its cancellation (as tools/call does) of a cancel, with the reason on its signal', async () => {
    const server = new Server({ name: 't', version: '0' }, { capabilities: { tools: {} } });
    const handlers = new Map<string, DirectHandler>();
    recordDirectHandlers(server, handlers);
    let reason: unknown;
    server.setRequestHandler(CallToolRequestSchema, async (_request, extra) => {
      const { cancellation } = extra as typeof extra & { cancellation: CallCancellation };
      await new Promise<void>((resolve) => cancellation.onAbort(() => resolve()));
      reason = cancellation.aborted ? cancellation.signal.reason : undefined;
      return { content: [] };
    });
    const sent: JSONRPCMessage[] = [];
    const fast = new SessionFastPath(server, handlers, async (message) => void sent.push(message), 'session-1');
    fast.take({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'slow' } }, {});
    fast.take({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5, reason: 'changed my mind' } }, {});
    await settle();
    expect(reason).toEqual(new CallCancelled('client', 'changed my mind'));
    expect(sent).toEqual([]);
  });

  it('with a server built on demand: answers initialize and ping itself, and builds the server for anything else', async () => {
    let built = false;
    const side: SessionSide = {
      initializeResult: (params) => ({ protocolVersion: params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 't', version: '0' } }),
      ensureServer: () => void (built = true),
      get serverBuilt() {
        return built;
      },
    };
    const { fast, sent } = setUp(async () => ({ content: [] }), side);
    expect(fast.take({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18' } }, {})).toBe(true);
    expect(fast.take({ jsonrpc: '2.0', id: 2, method: 'ping' }, {})).toBe(true);
    // Without a server, a notification or a stray response has nobody to go to: taken and dropped.
    expect(fast.take({ jsonrpc: '2.0', method: 'notifications/initialized' }, {})).toBe(true);
    expect(fast.take({ jsonrpc: '2.0', id: 99, result: {} }, {})).toBe(true);
    await settle();
    expect(sent).toEqual([
      { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 't', version: '0' } } },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
    expect(built).toBe(false);
    expect(fast.take({ jsonrpc: '2.0', id: 3, method: 'resources/list' }, {})).toBe(false);
    expect(built).toBe(true);
    // Once the server exists, notifications and responses go on to it.
    expect(fast.take({ jsonrpc: '2.0', method: 'notifications/initialized' }, {})).toBe(false);
    expect(fast.take({ jsonrpc: '2.0', id: 99, result: {} }, {})).toBe(false);
  });
});
