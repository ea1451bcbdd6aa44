import type { IncomingMessage, Server, ServerResponse } from 'node:http';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** `/mcp` itself, with or without a query string: the only URL every MCP message is posted to. */
function isMcpUrl(url: string | undefined): boolean {
  return url === '/mcp' || (url !== undefined && url.startsWith('/mcp?'));
}

/**
 * Hands requests for exactly `/mcp` to the endpoint before Express sees them. Express's own
 * per-request set-up (prototype swaps, query parsing, routing) cost more than the endpoint's
 * checks on every call; it gains nothing here because the endpoint works on node:http objects.
 * Every other URL, including spellings of /mcp that Express also matches, still goes through
 * Express, which keeps its /mcp route, so what a client sees does not change.
 */
export function serveMcpFirst(server: Server, endpoint: RequestListener): void {
  const others = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (isMcpUrl(req.url)) return endpoint(req, res);
    for (const listener of others) listener.call(server, req, res);
  });
}
