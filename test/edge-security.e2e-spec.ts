import { connect } from 'node:net';
import { issueDevToken } from '@estate/platform';
import { loadEdgeConfig } from '../apps/mcp-edge/src/config';
import { freePort } from './support/infra';
import { spawnService, TEST_SECRET, token, waitFor } from './support/estate.harness';
import { ALICE, startEdgeStack, type EdgeHandle, type EdgeStack } from './support/edge-stack';
import { ACCEPT_BOTH, raw, RawSession, type RawResponse } from './support/edge-wire';

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'sec', version: '1' } } });

/** Words that would tell an attacker what runs inside: stack frames, file paths, libraries, classes. */
const INTERNALS = /\bat \S+ \(|\.(ts|js):\d+|node_modules|\/work\/|TypeORM|kafkajs|QueryFailedError|ZodError|Nest|express|EdgeSession|SessionManager|StreamableHTTP|ToolCallPipeline|TypeError|ReferenceError|undefined \(reading/i;

/** The whole answer to `request` sent byte for byte (Node's client cannot send two Host headers). */
function rawHttp(port: string, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), '127.0.0.1', () => socket.end(request));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
}

function expectJsonRpcRefusal(answer: RawResponse, status: number, code?: number): void {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(answer.text) as { jsonrpc: string; error: { code: number; message: string } };
  expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: code ?? expect.any(Number), message: expect.any(String) } });
  expect(answer.text).not.toMatch(INTERNALS);
}

describe('the edge refuses what it must, and says nothing about its insides', () => {
  let stack: EdgeStack;
  let edge: EdgeHandle;
  let bearer: string;
  const headers = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: ACCEPT_BOTH, ...extra });

  beforeAll(async () => {
    stack = await startEdgeStack();
    edge = await stack.startEdge({ ESTATE_ALLOWED_ORIGINS: 'https://app.example', ESTATE_MAX_BODY_BYTES: '4096' });
    bearer = await token(ALICE);
  }, 120000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('binds to 127.0.0.1 unless told otherwise', () => {
    expect(loadEdgeConfig({ ESTATE_JWT_SECRET: TEST_SECRET }).host).toBe('127.0.0.1');
    expect(edge.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('refuses a present Origin that is not listed with 403, and serves a listed one or none', async () => {
    expectJsonRpcRefusal(await raw(edge.mcpUrl, { headers: headers({ origin: 'https://evil.example' }), body: INIT }), 403, -32600);
    expectJsonRpcRefusal(await raw(edge.mcpUrl, { headers: { origin: 'https://evil.example' }, method: 'GET' }), 403);
    expect((await raw(edge.mcpUrl, { headers: headers({ origin: 'https://app.example' }), body: INIT })).status).toBe(200);
    expect((await raw(edge.mcpUrl, { headers: headers(), body: INIT })).status).toBe(200);
  });

  it('accepts only loopback Host names when bound to loopback', async () => {
    const port = new URL(edge.url).port;
    expectJsonRpcRefusal(await raw(edge.mcpUrl, { headers: headers({ host: `attacker.example:${port}` }), body: INIT }), 403, -32600);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
      expect((await raw(edge.mcpUrl, { headers: headers({ host }), body: INIT })).status).toBe(200);
    }
  });

  it('refuses a Host that is not host[:port] as a Host not allowed, and two Host headers with 400', async () => {
    const port = new URL(edge.url).port;
    for (const host of [`localhost:${port}@evil.com`, `evil.com@localhost:${port}`, `localhost:${port}/x`, 'localhost :1', `127.0.0.1:${port}:1`]) {
      const answer = await raw(edge.mcpUrl, { headers: headers({ host }), body: INIT });
      expectJsonRpcRefusal(answer, 403, -32600);
      expect({ host, message: (JSON.parse(answer.text) as { error: { message: string } }).error.message }).toEqual({ host, message: 'Forbidden: Host not allowed' });
    }
    const twice = await rawHttp(port, [
      'POST /mcp HTTP/1.1', `Host: localhost:${port}`, 'Host: evil.com', `Authorization: Bearer ${bearer}`,
      'Content-Type: application/json', `Accept: ${ACCEPT_BOTH}`, `Content-Length: ${Buffer.byteLength(INIT)}`, 'Connection: close', '', INIT,
    ].join('\r\n'));
    expect(twice).toMatch(/^HTTP\/1\.1 400 /);
    expect(twice.slice(twice.indexOf('\r\n\r\n') + 4)).toBe(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Bad Request: more than one Host header' } }));
  });

  it('accepts exactly ESTATE_ALLOWED_HOSTS when they are set', async () => {
    const listed = await stack.startEdge({ ESTATE_ALLOWED_HOSTS: 'mcp.bank.example' });
    expect((await raw(listed.mcpUrl, { headers: headers({ host: 'MCP.bank.example:443' }), body: INIT })).status).toBe(200);
    expectJsonRpcRefusal(await raw(listed.mcpUrl, { headers: headers(), body: INIT }), 403);
  });

  it('challenges a missing or bad token with 401 pointing at the protected-resource metadata it serves', async () => {
    const challenge = `Bearer resource_metadata="${edge.url}/.well-known/oauth-protected-resource"`;
    const forged = await issueDevToken('another-secret-0123456789abcdef', ALICE);
    const expired = await issueDevToken(TEST_SECRET, ALICE, { expiresIn: '-1m' });
    for (const authorization of [undefined, 'Basic YWxpY2U6cHc=', 'Bearer not-a-jwt', `Bearer ${forged}`, `Bearer ${expired}`]) {
      const answer = await raw(edge.mcpUrl, { headers: { ...headers(), ...(authorization ? { authorization } : {}), ...(authorization ? {} : { authorization: '' }) }, body: INIT });
      expectJsonRpcRefusal(answer, 401, -32600);
      expect(answer.headers['www-authenticate']).toMatch(new RegExp(`^${challenge.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    }
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const metadata = await raw(`${edge.url}${path}`, { method: 'GET' });
      expect(metadata.status).toBe(200);
      expect(JSON.parse(metadata.text)).toMatchObject({ resource: `${edge.url}/mcp`, bearer_methods_supported: ['header'] });
    }
  });

  it('requires the configured audience when ESTATE_JWT_AUDIENCE is set', async () => {
    const audience = 'https://edge.bank.example/mcp';
    const strict = await stack.startEdge({ ESTATE_JWT_AUDIENCE: audience });
    const send = async (tokenValue: string) => raw(strict.mcpUrl, { headers: headers({ authorization: `Bearer ${tokenValue}` }), body: INIT });
    expectJsonRpcRefusal(await send(await issueDevToken(TEST_SECRET, ALICE)), 401);
    expectJsonRpcRefusal(await send(await issueDevToken(TEST_SECRET, ALICE, { audience: 'https://other.example/mcp' })), 401);
    expect((await send(await issueDevToken(TEST_SECRET, ALICE, { audience }))).status).toBe(200);
  });

  it('refuses ESTATE_AUTH=none at boot unless the edge binds loopback', async () => {
    expect(() => loadEdgeConfig({ ESTATE_AUTH: 'none', ESTATE_EDGE_HOST: '0.0.0.0' })).toThrow(/ESTATE_AUTH=none is only allowed/);
    expect(loadEdgeConfig({ ESTATE_AUTH: 'none' }).auth.mode).toBe('none');
    const child = spawnService('apps/mcp-edge/src/main.js', { ESTATE_AUTH: 'none', ESTATE_EDGE_HOST: '0.0.0.0', ESTATE_EDGE_PORT: String(await freePort()), KAFKA_BROKERS: stack.env.KAFKA_BROKERS });
    await waitFor(async () => (child.process.exitCode !== null ? true : undefined), 'the edge to refuse to boot');
    expect(child.process.exitCode).not.toBe(0);
    expect(child.output()).toContain('ESTATE_AUTH=none is only allowed');
  });

  it('refuses a body over ESTATE_MAX_BODY_BYTES with 413, with or without a session', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'x'.repeat(5000) } });
    expectJsonRpcRefusal(await raw(edge.mcpUrl, { headers: headers(), body: big }), 413, -32600);
    const session = await RawSession.open(edge.mcpUrl, ALICE);
    expectJsonRpcRefusal(await raw(edge.mcpUrl, { headers: session.headers(), body: big }), 413, -32600);
    // No Content-Length to refuse up front: the limit is found while reading, and the answer still comes.
    const chunked = await raw(edge.mcpUrl, { headers: session.headers({ 'transfer-encoding': 'chunked' }), body: big });
    expectJsonRpcRefusal(chunked, 413, -32600);
    expect(chunked.headers.connection).toBe('close');
    expect((await session.call('ping')).message.result).toEqual({});
  });

  it('refuses oversized headers with 431 and a JSON-RPC body', async () => {
    const answer = await raw(edge.mcpUrl, { headers: headers({ 'x-padding': 'p'.repeat(20000) }), body: INIT });
    expectJsonRpcRefusal(answer, 431, -32600);
  });

  it('puts a JSON-RPC error and no internals in the body of every refusal', async () => {
    const session = await RawSession.open(edge.mcpUrl, ALICE);
    const refusals: Array<[Promise<RawResponse>, number]> = [
      [raw(edge.mcpUrl, { headers: headers({ 'content-type': 'text/plain' }), body: INIT }), 415],
      [raw(edge.mcpUrl, { headers: headers({ accept: 'text/html' }), body: INIT }), 406],
      [raw(edge.mcpUrl, { method: 'PUT', headers: headers(), body: INIT }), 405],
      [raw(edge.mcpUrl, { method: 'GET', headers: session.headers({ accept: 'application/json' }) }), 406],
      [raw(edge.mcpUrl, { method: 'GET', headers: headers() }), 400],
      [raw(edge.mcpUrl, { headers: headers(), body: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":7}}' }), 400],
      [raw(edge.mcpUrl, { headers: session.headers(), body: '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]' }), 400],
      [raw(`${edge.url}/nowhere`, { method: 'GET', headers: headers() }), 404],
      [raw(`${edge.url}/.well-known/oauth-protected-resource`, { method: 'POST', headers: headers(), body: '{' }), 405],
    ];
    for (const [pending, status] of refusals) expectJsonRpcRefusal(await pending, status);
    const wrongShape = await session.call('tools/call', { name: { $ne: 1 } }, 'x');
    expect(wrongShape).toMatchObject({ status: 200, message: { id: 'x', error: { code: -32602, message: expect.stringContaining('params.name') } } });
    expect(JSON.stringify(wrongShape.message)).not.toMatch(INTERNALS);
    const unknownTool = await session.call('tools/call', { name: 'bank.nothing', arguments: {} });
    expect(unknownTool.message).toEqual({ jsonrpc: '2.0', id: expect.anything(), error: { code: -32601, message: 'Unknown tool: bank.nothing' } });
    const garbage = await session.call('tools/call', { name: 'bank.lookup', arguments: 'not-an-object' });
    expect(garbage.message).toMatchObject({ error: { code: -32602, message: expect.stringContaining('params.arguments') } });
    expect(JSON.stringify(garbage.message)).not.toMatch(INTERNALS);
  });
});
