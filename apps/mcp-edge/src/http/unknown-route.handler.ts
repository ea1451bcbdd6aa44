import type { IncomingMessage, ServerResponse } from 'node:http';
import { EDGE_ROUTES } from './edge.controller';
import { rpcError } from './json-rpc.reply';

/**
 * Answers every request outside the edge's few routes before the framework does, so that an
 * unknown path or a stray POST gets a JSON-RPC error body like every other refusal of the edge,
 * and never the framework's own wording. Mounted ahead of Nest's routing; /mcp never gets here.
 */
export function refuseUnknownRoutes(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
  if (!EDGE_ROUTES.includes(path)) {
    return rpcError(res, 404, null, { code: -32600, message: 'Not Found: the MCP endpoint is /mcp' });
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    return rpcError(res, 405, null, { code: -32600, message: `Method Not Allowed: ${path} only answers GET` });
  }
  next();
}
