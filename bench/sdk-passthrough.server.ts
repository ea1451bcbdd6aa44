/**
 * The scale reference from the brief: a plain MCP pass-through built only from the SDK's own
 * server and client. Each downstream session gets an SDK `Server` whose tools/list and tools/call
 * go through one shared SDK `Client` to BENCH_UPSTREAM_URL. No auth, no catalog, no validation.
 * Run as a child process: node -r @swc-node/register bench/sdk-passthrough.server.ts
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { announce, hostSdkSessions } from './support/sdk-session.host';

function createForwardingServer(upstream: Client): Server {
  const server = new Server({ name: 'bench-passthrough', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async (request) => upstream.listTools(request.params));
  server.setRequestHandler(CallToolRequestSchema, async (request) => (await upstream.callTool(request.params)) as CallToolResult);
  return server;
}

async function main(): Promise<void> {
  const target = process.env.BENCH_UPSTREAM_URL;
  if (!target) throw new Error('BENCH_UPSTREAM_URL is required');
  const upstream = new Client({ name: 'bench-passthrough', version: '1.0.0' });
  await upstream.connect(new StreamableHTTPClientTransport(new URL(target)));
  const { url } = await hostSdkSessions(() => createForwardingServer(upstream));
  announce(url);
}

main().catch((error: unknown) => {
  process.stderr.write(`sdk pass-through: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
