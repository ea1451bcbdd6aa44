import { startEdgeStack, type EdgeStack } from './support/edge-stack';
import { token } from './support/estate.harness';

const ORIGIN = 'https://console.example.com';

describe('browser clients from a listed origin (CORS)', () => {
  let stack: EdgeStack;
  let mcpUrl: string;

  beforeAll(async () => {
    stack = await startEdgeStack();
    mcpUrl = (await stack.startEdge({ ESTATE_ALLOWED_ORIGINS: ORIGIN })).mcpUrl;
  });

  afterAll(async () => {
    await stack.stop();
  });

  it('answers the preflight of a listed origin with the methods and headers MCP needs', async () => {
    const response = await fetch(mcpUrl, {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-session-id' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('mcp-session-id');
  });

  it('refuses the preflight of an unlisted origin with 403', async () => {
    const response = await fetch(mcpUrl, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets the listed origin read the session id of its initialize answer', async () => {
    const response = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        origin: ORIGIN, 'content-type': 'application/json', accept: 'application/json, text/event-stream',
        authorization: `Bearer ${await token({ sub: 'browser-user', scope: 'bank:read', clearance: 'internal' })}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'web', version: '1' } } }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeTruthy();
    expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(response.headers.get('access-control-expose-headers')).toContain('Mcp-Session-Id');
    await response.body?.cancel();
  });
});
