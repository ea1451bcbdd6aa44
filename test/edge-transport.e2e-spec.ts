import { waitFor } from './support/estate.harness';
import { ALICE, startEdgeStack, type EdgeHandle, type EdgeStack } from './support/edge-stack';
import { openStream, parseSse, raw, RawSession, sseMessages } from './support/edge-wire';

/**
 * The edge's own Streamable HTTP transport (node:http, no Web-stream conversion) on the points the
 * wire tests do not reach: priming events by version, one GET stream per session, and a POST
 * answer that the client lost coming back through Last-Event-ID.
 */
describe('the edge transport: SSE streams, priming and resumption', () => {
  let stack: EdgeStack;
  let edge: EdgeHandle;

  beforeAll(async () => {
    stack = await startEdgeStack();
    edge = await stack.startEdgeWithLookup();
  }, 120000);

  afterAll(async () => {
    await stack?.stop();
  });

  // As in the SDK, the MCP-Protocol-Version header decides; without it a request counts as 2025-03-26.
  it('opens each POST stream with an empty event that has an id on 2025-11-25, and without it on older versions', async () => {
    const session = await RawSession.open(edge.mcpUrl, ALICE, '2025-11-25');
    const current = await raw(edge.mcpUrl, { headers: session.headers({ 'mcp-protocol-version': '2025-11-25' }), body: '{"jsonrpc":"2.0","id":7,"method":"ping"}' });
    const events = parseSse(current.text);
    expect(events[0]).toEqual({ id: expect.any(String), data: '' });
    expect(events.slice(1).map((e) => [e.event, typeof e.id, JSON.parse(e.data)])).toEqual([['message', 'string', { jsonrpc: '2.0', id: 7, result: {} }]]);
    const older = await raw(edge.mcpUrl, { headers: session.headers({ 'mcp-protocol-version': '2025-06-18' }), body: '{"jsonrpc":"2.0","id":8,"method":"ping"}' });
    expect(parseSse(older.text).map((e) => JSON.parse(e.data) as unknown)).toEqual([{ jsonrpc: '2.0', id: 8, result: {} }]);
  });

  // One write per prompt answer: a body of known length (no chunked encoding) carries priming and answer together.
  it('sends a prompt answer whole, priming event included, as one body of known length', async () => {
    const session = await RawSession.open(edge.mcpUrl, ALICE, '2025-11-25');
    for (const body of ['{"jsonrpc":"2.0","id":9,"method":"ping"}', '{"jsonrpc":"2.0","id":10,"method":"tools/list"}']) {
      const answer = await raw(edge.mcpUrl, { headers: session.headers({ 'mcp-protocol-version': '2025-11-25' }), body });
      expect([answer.status, answer.headers['content-type'], answer.headers['transfer-encoding']]).toEqual([200, 'text/event-stream', undefined]);
      expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.text));
      const events = parseSse(answer.text);
      expect(events[0]).toEqual({ id: expect.any(String), data: '' });
      expect(events.slice(1).map((e) => (JSON.parse(e.data) as { id: number }).id)).toEqual([JSON.parse(body).id]);
    }
    const listed = sseMessages((await raw(edge.mcpUrl, { headers: session.headers({ 'mcp-protocol-version': '2025-11-25' }), body: '{"jsonrpc":"2.0","id":11,"method":"tools/list"}' })).text);
    expect(listed[0]).toMatchObject({ id: 11, result: { tools: [expect.objectContaining({ name: 'bank.lookup' })] } });
  });

  it('allows one GET stream per session: a second gets 409 while the first is open, and is served once it closed', async () => {
    const session = await RawSession.open(edge.mcpUrl, ALICE);
    const headers = { ...session.headers(), accept: 'text/event-stream' };
    const first = await openStream(edge.mcpUrl, headers);
    expect([first.status, first.headers['content-type'], first.headers['mcp-session-id']]).toEqual([200, 'text/event-stream', session.id]);
    const second = await raw(edge.mcpUrl, { method: 'GET', headers });
    expect(second.status).toBe(409);
    expect(JSON.parse(second.text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { message: expect.stringContaining('Conflict') } });
    first.close();
    const live = edge.sessions.find(session.id, { id: 'alice', scopes: ['bank:read'], clearance: 'internal' })!;
    await waitFor(async () => (live.openStreams === 0 ? true : undefined), 'the edge to see the first stream close');
    const third = await openStream(edge.mcpUrl, headers);
    expect(third.status).toBe(200);
    third.close();
  });

  it('gives a client that lost a POST answer the answer again after its Last-Event-ID, then ends that stream', async () => {
    const session = await RawSession.open(edge.mcpUrl, ALICE);
    const answer = await raw(edge.mcpUrl, { headers: session.headers({ 'mcp-protocol-version': '2025-11-25' }), body: '{"jsonrpc":"2.0","id":"lost","method":"tools/list"}' });
    const priming = parseSse(answer.text)[0];
    const resumed = await raw(edge.mcpUrl, { method: 'GET', headers: { ...session.headers(), accept: 'text/event-stream', 'last-event-id': priming.id! } });
    expect(resumed.status).toBe(200);
    expect(sseMessages(resumed.text)).toEqual(sseMessages(answer.text));
    expect(sseMessages(resumed.text)[0]).toMatchObject({ id: 'lost', result: { tools: [expect.objectContaining({ name: 'bank.lookup' })] } });
    const unknown = await raw(edge.mcpUrl, { method: 'GET', headers: { ...session.headers(), accept: 'text/event-stream', 'last-event-id': 'no-such-stream|1' } });
    expect(unknown.status).toBe(400);
  });
});
