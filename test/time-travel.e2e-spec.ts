import { bankSpecs } from '../examples/bank/bank.specs';
import { estate } from './support/cli.runner';
import { ADMIN, http, token, waitFor } from './support/estate.harness';
import { startEstateServices, type EstateServices } from './support/estate.stack';

const READER = { sub: 'reader', scope: 'tt:read', clearance: 'internal' };
const WRITER = { sub: 'writer', scope: 'tt:read tt:write', clearance: 'internal' };
/** How the admin describes the writer to discovery: the rights its token would carry. */
const WRITER_QUERY = 'principal=writer&scope=tt%3Aread%20tt%3Awrite&clearance=internal';

interface Seen {
  name: string;
  version: string | null;
  callable: Array<{ version: string; status: string }>;
}

/** A tool as a line: the unpinned version, then every version a pin reaches. */
const lines = (tools: Seen[]) => tools.map((t) => `${t.name} ${t.version ?? '-'} [${t.callable.map((c) => `${c.version}:${c.status}`).join(' ')}]`);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('time travel: discovery at an instant and a tool history (real Kafka, real HTTP)', () => {
  let stack: EstateServices;
  const tokens = { admin: '', reader: '', writer: '' };
  /** instants[0] before any event, instants[i] after the i-th change and before the next. */
  const instants: string[] = [];
  const [lookup] = bankSpecs('tt');
  const v1 = { ...lookup, requiredScopes: ['tt:read'] };
  const v2 = { ...v1, version: '2.0.0', requiredScopes: ['tt:read', 'tt:write'] };

  const mark = async () => {
    // The registry stamps each event with its own clock on this machine: a pause on either side puts the mark strictly between events.
    await pause(30);
    instants.push(new Date().toISOString());
    await pause(30);
  };
  const discoverAt = async (who: string, at: string, extra = '') =>
    http('GET', `${stack.discoveryUrl}/v1/discover?at=${encodeURIComponent(at)}${extra ? `&${extra}` : ''}`, who) as Promise<{ status: number; body: Record<string, unknown> & { tools: Seen[] } }>;
  const post = async (path: string, body: unknown) => expect((await http('POST', `${stack.registryUrl}${path}`, tokens.admin, body)).status).toBeLessThan(300);

  beforeAll(async () => {
    stack = await startEstateServices({ name: 'time-travel' });
    tokens.admin = await token(ADMIN);
    tokens.reader = await token(READER);
    tokens.writer = await token(WRITER);
    await post('/v1/servers', { name: 'tt', url: 'http://127.0.0.1:9/mcp', owner: 'payments-team' });
    await mark();
    await post('/v1/tools', v1);
    await mark();
    await post('/v1/tools/tt.lookup/versions/1.0.0/deprecate', { reason: 'a successor is coming' });
    await mark();
    await post('/v1/tools', v2);
    await mark();
    await post('/v1/tools/tt.lookup/versions/1.0.0/retire', { reason: 'withdrawn' });
    await mark();
  }, 120000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('answers, at four instants between publish, deprecate, publish and retire, what each principal could see and call', async () => {
    const expected = {
      reader: [[], ['tt.lookup 1.0.0 [1.0.0:active]'], ['tt.lookup - [1.0.0:deprecated]'], ['tt.lookup - [1.0.0:deprecated]'], []],
      writer: [[], ['tt.lookup 1.0.0 [1.0.0:active]'], ['tt.lookup - [1.0.0:deprecated]'], ['tt.lookup 2.0.0 [1.0.0:deprecated 2.0.0:active]'], ['tt.lookup 2.0.0 [2.0.0:active]']],
    };
    for (const [i, at] of instants.entries()) {
      // The reader asks for itself with its own token; the admin asks on the writer's behalf.
      const reader = await discoverAt(tokens.reader, at);
      const writer = await discoverAt(tokens.admin, at, WRITER_QUERY);
      expect([reader.status, writer.status]).toEqual([200, 200]);
      expect({ instant: i, reader: lines(reader.body.tools), writer: lines(writer.body.tools) }).toEqual({ instant: i, reader: expected.reader[i], writer: expected.writer[i] });
      expect(writer.body).toMatchObject({ principal: 'writer', at, events: i + 1 });
      // The counts cover every change, hidden ones too: only an admin, who may read the store, is told them.
      expect([reader.body.events, reader.body.lastEventAt]).toEqual([undefined, undefined]);
    }
    // The writer's own token gives what the admin's description of it gave.
    expect(lines((await discoverAt(tokens.writer, instants[3])).body.tools)).toEqual(expected.writer[3]);
  });

  it('agrees with the live catalog about now once discovery has caught up', async () => {
    const now = await waitFor(async () => {
      const live = await http('POST', `${stack.discoveryUrl}/v1/discover`, tokens.writer);
      return (live.body.tools as Seen[] | undefined)?.[0]?.version === '2.0.0' ? live : undefined;
    }, 'discovery to apply the retirement', 30000);
    const folded = await discoverAt(tokens.writer, new Date().toISOString());
    expect(folded.body.tools.map((t) => `${t.name}@${t.version}`)).toEqual((now.body.tools as Seen[]).map((t) => `${t.name}@${t.version}`));
  });

  it('keeps the rules of POST /v1/discover and refuses a bad instant with the parameter named', async () => {
    expect((await discoverAt(tokens.reader, instants[1], WRITER_QUERY)).status).toBe(403);
    const bad = await discoverAt(tokens.reader, '2026-02-30T10:00:00Z');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ details: { issues: [{ path: 'at', message: expect.stringContaining('ISO 8601') }] } });
    const future = await discoverAt(tokens.reader, new Date(Date.now() + 3_600_000).toISOString());
    expect(future.status).toBe(400);
    expect(JSON.stringify(future.body)).toContain('no facts about the future');
    expect((await http('GET', `${stack.discoveryUrl}/v1/discover?at=${encodeURIComponent(instants[1])}`, undefined)).status).toBe(401);
  });

  it('lists every change of a tool with who and when, and hides a tool the reader cannot discover like a missing one', async () => {
    const admin = await http('GET', `${stack.registryUrl}/v1/tools/tt.lookup/history`, tokens.admin);
    expect(admin.status).toBe(200);
    const changes = admin.body.changes as Array<{ change: string; version: string; actor?: string; at: string; summary: string }>;
    expect(changes.map((c) => `${c.change} ${c.version} by ${c.actor}`)).toEqual([
      'published 1.0.0 by platform-admin', 'deprecated 1.0.0 by platform-admin', 'published 2.0.0 by platform-admin', 'retired 1.0.0 by platform-admin',
    ]);
    // Each change happened between the marks on either side of it.
    changes.forEach((c, i) => expect([instants[i] < c.at, c.at < instants[i + 1]]).toEqual([true, true]));
    expect(changes[1].summary).toBe('deprecated 1.0.0: a successor is coming');

    const writer = await http('GET', `${stack.registryUrl}/v1/tools/tt.lookup/history`, tokens.writer);
    expect((writer.body.changes as typeof changes).map((c) => [c.change, c.actor])).toEqual([['published', undefined], ['deprecated', undefined], ['published', undefined], ['retired', undefined]]);
    // The reader can discover no version of tt.lookup any more: its answer is the one for a tool that never existed.
    const hidden = await http('GET', `${stack.registryUrl}/v1/tools/tt.lookup/history`, tokens.reader);
    const missing = await http('GET', `${stack.registryUrl}/v1/tools/tt.lookup/history`.replace('tt.lookup', 'tt.nothing'), tokens.reader);
    expect(hidden.status).toBe(404);
    expect(JSON.stringify(hidden.body).replace('tt.lookup', 'X')).toBe(JSON.stringify(missing.body).replace('tt.nothing', 'X'));
  });

  it('gives both answers through the estate CLI (estate as-of, estate history)', async () => {
    const env = { ESTATE_REGISTRY_URL: stack.registryUrl, ESTATE_DISCOVERY_URL: stack.discoveryUrl, ESTATE_TOKEN: tokens.admin };
    const asOf = await estate(['as-of', instants[3], '--principal', 'writer', '--scope', 'tt:read tt:write', '--clearance', 'internal'], env);
    expect(asOf.code).toBe(0);
    expect(asOf.stdout).toContain('200 OK');
    expect(asOf.stdout).toContain(`writer at ${instants[3]} (4 events folded): 1 tool`);
    expect(asOf.stdout).toContain('tt.lookup  2.0.0  callable: 1.0.0 deprecated, 2.0.0 active');

    const history = await estate(['history', 'tt.lookup'], env);
    expect(history.code).toBe(0);
    expect(history.stdout).toMatch(/ {2}\S+ {2}retired +1\.0\.0 {2}platform-admin {2}retired 1\.0\.0: withdrawn/);

    const refused = await estate(['as-of', 'yesterday'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('400');
    expect(refused.stderr).toContain('"path": "at"');
    const unknown = await estate(['history', 'tt.nothing'], env);
    expect([unknown.code, unknown.stderr.split('\n')[0]]).toEqual([1, '404 Not Found']);
  });
});
