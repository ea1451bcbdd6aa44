// An MCP host built on the TypeScript SDK 2.x client (@modelcontextprotocol/client, ESM), driven
// by clients.e2e-spec.ts. Input: ESTATE_MCP_URL, ESTATE_TOKEN, INTEROP_TOOL, INTEROP_ARGUMENTS
// (JSON), INTEROP_NEGOTIATION ('legacy', the SDK default, or 'auto': probe with the 2026-07-28
// `server/discover` first and fall back to `initialize`). Output: one JSON object per stdout line — listed, called, changed — or error.
// Diagnostics go to stderr only.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

// Generous: on a loaded CI machine six clients start at once.
const TIMEOUT_MS = 90000;
const emit = (event, body) => process.stdout.write(`${JSON.stringify({ event, ...body })}\n`);
const describeTools = (tools) =>
  tools.map((t) => ({ name: t.name, properties: Object.keys(t.inputSchema?.properties ?? {}).sort() })).sort((a, b) => a.name.localeCompare(b.name));

async function main() {
  const { ESTATE_MCP_URL: url, ESTATE_TOKEN: token, INTEROP_TOOL: tool, INTEROP_ARGUMENTS: args } = process.env;
  let notified;
  const changed = new Promise((resolve) => (notified = resolve));
  const client = new Client(
    { name: 'estate-interop-sdk2', version: '1.0.0' },
    {
      listChanged: { tools: { onChanged: (error, tools) => notified({ error, tools }) } },
      versionNegotiation: { mode: process.env.INTEROP_NEGOTIATION ?? 'legacy' },
    },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  emit('listed', { protocolVersion: transport.protocolVersion ?? null, tools: describeTools((await client.listTools()).tools) });
  const result = await client.callTool({ name: tool, arguments: JSON.parse(args ?? '{}') });
  emit('called', { isError: result.isError === true, structuredContent: result.structuredContent ?? null });
  const timer = setTimeout(() => {
    emit('error', { message: `no tools list_changed within ${TIMEOUT_MS} ms` });
    process.exit(1);
  }, TIMEOUT_MS);
  const { error } = await changed;
  clearTimeout(timer);
  if (error) throw error;
  // List again ourselves rather than trusting the handler's copy: that is what a host does.
  emit('changed', { tools: describeTools((await client.listTools()).tools) });
  await client.close();
}

main().then(
  () => process.exit(0),
  (error) => {
    emit('error', { message: String(error?.stack ?? error) });
    process.exit(1);
  },
);
