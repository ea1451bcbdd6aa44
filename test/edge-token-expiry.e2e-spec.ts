import { decodeJwt } from 'jose';
import { issueDevToken, type TokenClaims } from '@estate/platform';
import { TEST_SECRET, token, waitFor } from './support/estate.harness';
import { ALICE, startEdgeStack, type EdgeHandle, type EdgeStack } from './support/edge-stack';
import { ACCEPT_BOTH, mirroredHeaders, openStream, RawSession, type OpenStream, type SseEvent } from './support/edge-wire';

/*
 * "Rights that outlive a token": a stream that waits for news is a grant of the token that opened
 * it. When that token expires the edge ends the stream, and sends the session nothing unprompted
 * (nor keeps anything for a replay) until a request with a valid token arrives. A stream opened
 * with a long-lived token, meanwhile, keeps hearing.
 */

/** Long enough to open a session, a stream and see one publish arrive; short enough to wait out. */
const SHORT_LIFETIME = '8s';

function shortToken(claims: TokenClaims): Promise<string> {
  return issueDevToken(TEST_SECRET, claims, { expiresIn: SHORT_LIFETIME });
}

/** When a token stops being accepted, in ms since the epoch. */
function expiryOf(bearer: string): number {
  return decodeJwt(bearer).exp! * 1000;
}

/** A session opened and driven with this bearer (RawSession.open mints a 12 h token of its own). */
async function sessionWith(url: string, bearer: string): Promise<RawSession> {
  const session = new RawSession(url, bearer);
  const init = await session.initialize('2025-11-25');
  if (init.status !== 200) throw new Error(`initialize failed: ${init.status} ${init.text}`);
  const initialized = await session.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  if (initialized.status !== 202) throw new Error(`initialized failed: ${initialized.status} ${initialized.text}`);
  return session;
}

function getStream(session: RawSession, extra: Record<string, string> = {}): Promise<OpenStream> {
  return openStream(session.url, { ...session.headers(), accept: 'text/event-stream', ...extra });
}

const isListChanged = (e: SseEvent) => e.data.includes('notifications/tools/list_changed');
const listChangedCount = (stream: OpenStream) => stream.events.filter(isListChanged).length;

/** Resolves with the time the server ended the stream. */
async function endedAt(stream: OpenStream, timeoutMs: number): Promise<number> {
  await waitFor(async () => (stream.closed() ? true : undefined), 'the edge to end the stream', timeoutMs);
  return Date.now();
}

describe('the edge ends streams when the token that opened them expires', () => {
  let stack: EdgeStack;
  let edge: EdgeHandle;
  let minor = 0;
  /** Publishes the next minor version of bank.lookup, which every bank:read holder sees. */
  const publish = () => stack.publishLookup(`1.${++minor}.0`);

  beforeAll(async () => {
    stack = await startEdgeStack();
    edge = await stack.startEdgeWithLookup();
  }, 120000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('ends a session GET stream at its token expiry and drops list_changed until a valid request; a long-lived stream keeps hearing', async () => {
    const bearer = await shortToken(ALICE);
    const expiresAt = expiryOf(bearer);
    const short = await sessionWith(edge.mcpUrl, bearer);
    const long = await RawSession.open(edge.mcpUrl, ALICE);
    const shortStream = await getStream(short);
    const longStream = await getStream(long);
    try {
      expect([shortStream.status, longStream.status]).toEqual([200, 200]);
      // Before expiry the short-lived stream hears a change like any other.
      await publish();
      const heard = await shortStream.waitFor(isListChanged, 5000);
      await longStream.waitFor(isListChanged, 5000);
      expect(Date.now()).toBeLessThan(expiresAt);
      expect(shortStream.closed()).toBe(false);

      const ended = await endedAt(shortStream, expiresAt - Date.now() + 5000);
      expect(ended).toBeGreaterThanOrEqual(expiresAt - 200);
      expect(ended).toBeLessThan(expiresAt + 2000);
      expect((await short.call('ping')).status).toBe(401);
      // Reopening with the expired token is refused too.
      expect((await getStream(short)).status).toBe(401);

      await publish();
      await waitFor(async () => (listChangedCount(longStream) === 2 ? true : undefined), 'the long-lived stream to hear the second publish');
      expect(longStream.closed()).toBe(false);

      // A valid token of the same subject may take the session up again; resuming after the last
      // event the stream carried shows the change while the token was expired was never kept.
      const renewed = new RawSession(edge.mcpUrl, await token(ALICE));
      renewed.id = short.id;
      const resumed = await getStream(renewed, { 'last-event-id': heard.id! });
      expect(resumed.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(resumed.events.filter((e) => e.data !== '')).toEqual([]);
      // From that valid request on, the session hears changes again.
      await publish();
      await resumed.waitFor(isListChanged, 5000);
      resumed.close();
    } finally {
      shortStream.close();
      longStream.close();
    }
  }, 60000);

  it('answers and ends a 2026-07-28 subscriptions/listen stream at its token expiry; a long-lived one keeps hearing', async () => {
    const bearer = await shortToken(ALICE);
    const expiresAt = expiryOf(bearer);
    const short = await listen(bearer, 'short');
    const long = await listen(await token(ALICE), 'long');
    try {
      for (const stream of [short, long]) {
        expect(stream.status).toBe(200);
        await stream.waitFor((e) => e.data.includes('acknowledged'));
      }
      const ended = await endedAt(short, expiresAt - Date.now() + 5000);
      expect(ended).toBeGreaterThanOrEqual(expiresAt - 200);
      expect(ended).toBeLessThan(expiresAt + 2000);
      // The listen request is answered, as at shutdown, so the client knows the end was meant.
      const answer = JSON.parse(short.events[short.events.length - 1].data) as Record<string, unknown>;
      expect(answer).toEqual({ jsonrpc: '2.0', id: 'short', result: expect.objectContaining({ resultType: 'complete' }) });

      await publish();
      await long.waitFor(isListChanged, 10000);
      expect(listChangedCount(short)).toBe(0);
      expect(long.closed()).toBe(false);
    } finally {
      short.close();
      long.close();
    }
  }, 60000);

  function listen(bearer: string, id: string): Promise<OpenStream> {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'token-expiry', version: '1' } };
    const params = { notifications: { toolsListChanged: true }, _meta: meta };
    const headers = { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: ACCEPT_BOTH, ...mirroredHeaders('subscriptions/listen', params) };
    return openStream(edge.mcpUrl, headers, JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params }));
  }
});
