/**
 * A zero-work upstream MCP server for the edge benchmarks: `noop` answers at once with a fixed
 * result; tools/list advertises BENCH_LIST_TOOLS tools (those the bench catalog publishes) in
 * pages of 200, the same page size as the edge, so its first page is the list baseline.
 * Run as a child process: node -r @swc-node/register bench/noop-upstream.server.ts
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type ListToolsResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { advertisedTool } from './catalog.fixture';
import { announce, hostSdkSessions } from './support/sdk-session.host';

const RESULT: CallToolResult = { content: [{ type: 'text', text: 'ok' }] };
const PAGE = 200;

function page(tools: Tool[], cursor: string | undefined): ListToolsResult {
  const start = cursor === undefined ? 0 : Number(cursor);
  const result: ListToolsResult = { tools: tools.slice(start, start + PAGE) };
  if (start + PAGE < tools.length) result.nextCursor = String(start + PAGE);
  return result;
}

function createNoopServer(tools: Tool[]): Server {
  const server = new Server({ name: 'bench-noop', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async (request) => page(tools, request.params?.cursor));
  server.setRequestHandler(CallToolRequestSchema, async () => RESULT);
  return server;
}

async function main(): Promise<void> {
  const count = Number(process.env.BENCH_LIST_TOOLS ?? '1');
  const tools = Array.from({ length: count }, (_, i) => advertisedTool(i) as Tool);
  const { url } = await hostSdkSessions(() => createNoopServer(tools));
  announce(url);
}

main().catch((error: unknown) => {
  process.stderr.write(`noop upstream: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
