import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ListToolsRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LazySessionServer } from './lazy-session.server';

/** A transport that keeps what it is sent, as the session's HTTP transport would write it. */
function recordingTransport(): Transport & { sent: Array<{ message: JSONRPCMessage; options?: unknown }>; closed: number } {
  const transport = {
    sent: [] as Array<{ message: JSONRPCMessage; options?: unknown }>,
    closed: 0,
    onclose: undefined as (() => void) | undefined,
    async start() {},
    async send(message: JSONRPCMessage, options?: unknown) {
      transport.sent.push({ message, options });
    },
    async close() {
      transport.closed += 1;
      transport.onclose?.();
    },
  };
  return transport;
}

function setUp() {
  const transport = recordingTransport();
  let builds = 0;
  const registered: string[] = [];
  const lazy = new LazySessionServer({
    build: () => ((builds += 1), new Server({ name: 't', version: '0' }, { capabilities: { tools: {}, resources: {} } })),
    transport,
    client: () => ({ capabilities: { elicitation: {} }, clientInfo: { name: 'c', version: '1' } }),
    registered: (schema) => registered.push(String((schema as typeof ListToolsRequestSchema).shape.method.value)),
  });
  return { lazy, transport, builds: () => builds, registered };
}

describe('LazySessionServer', () => {
  it('records handlers, answers client capabilities and sends notifications without building a server', async () => {
    const { lazy, transport, builds, registered } = setUp();
    lazy.server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));
    expect(registered).toEqual(['tools/list']);
    expect(lazy.server.getClientCapabilities()).toEqual({ elicitation: {} });
    await lazy.server.sendToolListChanged();
    await lazy.server.notification({ method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }, { relatedRequestId: 7 });
    expect(transport.sent).toEqual([
      { message: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' }, options: undefined },
      { message: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }, options: { relatedRequestId: 7 } },
    ]);
    expect(builds()).toBe(0);
    expect(lazy.built).toBe(false);
  });

  it('builds the server on first need, with the handlers registered so far, the client it was told of, and connected', async () => {
    const { lazy, transport, builds } = setUp();
    lazy.server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'x', inputSchema: { type: 'object' } }] }));
    const server = lazy.ensure();
    expect(builds()).toBe(1);
    expect(lazy.ensure()).toBe(server);
    expect(server.getClientCapabilities()).toEqual({ elicitation: {} });
    expect(server.getClientVersion()).toEqual({ name: 'c', version: '1' });
    transport.onmessage?.({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(transport.sent.map((s) => s.message)).toEqual([{ jsonrpc: '2.0', id: 3, result: { tools: [{ name: 'x', inputSchema: { type: 'object' } }] } }]);
  });

  it('runs the close listener once, built or not, and refuses notifications afterwards as the SDK does', async () => {
    for (const build of [false, true]) {
      const { lazy, transport } = setUp();
      let closed = 0;
      lazy.server.onclose = () => (closed += 1);
      if (build) lazy.ensure();
      await transport.close();
      await lazy.server.close();
      expect(closed).toBe(1);
      await expect(lazy.server.sendToolListChanged()).rejects.toThrow('Not connected');
    }
  });
});
