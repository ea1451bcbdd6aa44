/**
 * A zero-work upstream MCP server for the edge benchmarks: `noop` answers at once with a fixed
 * result, and tools/list returns a fixed page of BENCH_LIST_TOOLS tools (the baseline for the
 * edge's filtered list). Run as a child process: node -r @swc-node/register bench/noop-upstream.server.ts
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { announce, hostSdkSessions } from './support/sdk-session.host';

const RESULT: CallToolResult = { content: [{ type: 'text', text: 'ok' }] };

function toolPage(count: number): Tool[] {
  const tools: Tool[] = [{ name: 'noop', description: 'Does nothing and answers at once.', inputSchema: { type: 'object', properties: {} } }];
  for (let i = 1; i < count; i += 1) {
    tools.push({
      name: `tool${String(i).padStart(4, '0')}`,
      title: `Bench tool ${i}`,
      description: `Synthetic tool ${i} of the benchmark catalog.`,
      inputSchema: { type: 'object', properties: { id: { type: 'string', maxLength: 64 }, count: { type: 'integer', minimum: 0 } }, required: ['id'] },
    });
  }
  return tools;
}

function createNoopServer(tools: Tool[]): Server {
  const server = new Server({ name: 'bench-noop', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async () => RESULT);
  return server;
}

async function main(): Promise<void> {
  const tools = toolPage(Number(process.env.BENCH_LIST_TOOLS ?? '1'));
  const { url } = await hostSdkSessions(() => createNoopServer(tools));
  announce(url);
}

main().catch((error: unknown) => {
  process.stderr.write(`noop upstream: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
