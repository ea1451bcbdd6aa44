import { LoggingMessageNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import type { ToolSpec } from '@estate/contracts';
import { bankSpecs } from '../examples/bank/bank.specs';
import { connect, http, token, waitFor, type McpSession } from './support/estate.harness';
import { startToolsStack, type ToolsStack } from './support/edge-tools.fixture';

const ALICE = { sub: 'alice', scope: 'bank:read', clearance: 'internal' };
const CAROL = { sub: 'carol', scope: 'bank:read', clearance: 'internal' };
const [lookup] = bankSpecs('bank');
const lookup11: ToolSpec = { ...lookup, version: '1.1.0' };
const PIN_OLD = { 'io.estate/pins': { 'bank.lookup': '1.0.0' } };
const SUNSET = '2027-06-30T00:00:00.000Z';

type Warning = LoggingMessageNotification['params'];

/** Reads the audit's tool-change feed from its start until an event's JSON satisfies `found`. */
async function feedEvent(auditUrl: string, bearer: string, found: (event: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 20000);
  try {
    const response = await fetch(`${auditUrl}/v1/events/stream?lastEventId=0`, { headers: { authorization: `Bearer ${bearer}` }, signal: abort.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the feed ended');
      buffered += decoder.decode(value, { stream: true });
      const frames = buffered.split('\n\n');
      buffered = frames.pop() ?? '';
      for (const frame of frames) {
        const data = frame.split('\n').find((line) => line.startsWith('data: '));
        const event = data ? (JSON.parse(data.slice(6)) as Record<string, unknown>) : undefined;
        if (event && found(event)) return event;
      }
    }
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

/** The feed's callers event, in the estate's own form or as a CloudEvent. */
const isCallersEvent = (event: Record<string, unknown>) => event.type === 'ToolVersionDeprecationCallers' || event.type === 'io.estate.tool.version.deprecation.callers';

describe('deprecation reaches callers: the notice at the edge, the callers on the feed (real Kafka, PostgreSQL, SDK client)', () => {
  let stack: ToolsStack;
  const sessions: McpSession[] = [];
  const open = async (claims: typeof ALICE) => {
    const session = await connect(stack.mcpUrl, await token(claims));
    sessions.push(session);
    return session;
  };
  const listen = (session: McpSession) => {
    const warnings: Warning[] = [];
    session.client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => void warnings.push(n.params));
    return warnings;
  };
  const callOld = (session: McpSession, reference: string) =>
    session.client.callTool({ name: 'bank.lookup', arguments: { reference }, _meta: PIN_OLD });

  beforeAll(async () => {
    stack = await startToolsStack();
    for (const spec of [lookup, lookup11]) await stack.publish(spec);
  }, 90000);

  afterAll(async () => {
    for (const s of sessions) await s.close().catch(() => undefined);
    await stack?.stop();
  });

  it('marks every answer of a deprecated version, warns each session once at its log level, and names its recent callers on the feed', async () => {
    const alice = await open(ALICE);
    const carol = await open(CAROL);
    const warnings = listen(alice);
    const before = await callOld(alice, 'PMT-1');
    expect(before.isError).toBeFalsy();
    expect(before._meta?.['io.estate/deprecation']).toBeUndefined();
    // Carol calls the tool, but the current version: she is no caller of 1.0.0.
    expect((await carol.client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-2' } })).isError).toBeFalsy();
    await stack.audit('principal=alice&type=ToolCallCompleted&version=1.0.0', 1);
    await stack.audit('principal=carol&type=ToolCallCompleted&version=1.1.0', 1);

    const deprecated = await http('POST', `${stack.registryUrl}/v1/tools/bank.lookup/versions/1.0.0/deprecate`, stack.admin, { reason: 'use 1.1.0', sunsetAt: SUNSET, replacement: '1.1.0' });
    expect(deprecated.status).toBe(200);
    await waitFor(async () => (stack.edge.replica.get('bank.lookup')?.versions.find((v) => v.version === '1.0.0')?.status === 'deprecated' ? true : undefined), 'the deprecation at the edge');

    const first = await callOld(alice, 'PMT-3');
    expect(first.structuredContent).toMatchObject({ reference: 'PMT-3' });
    const notice = first._meta?.['io.estate/deprecation'] as Record<string, unknown>;
    expect(notice).toEqual({ reason: 'use 1.1.0', since: expect.any(String), sunset: SUNSET, successor: '1.1.0' });
    expect(Date.parse(notice.since as string)).toBeLessThanOrEqual(Date.now());
    await waitFor(async () => (warnings.length > 0 ? true : undefined), 'the deprecation warning');
    expect(warnings[0]).toMatchObject({ level: 'warning', data: { tool: 'bank.lookup', version: '1.0.0', sunset: SUNSET, successor: '1.1.0' } });
    expect((warnings[0].data as { message: string }).message).toContain('bank.lookup version 1.0.0 is deprecated');

    const second = await callOld(alice, 'PMT-4');
    expect(second._meta?.['io.estate/deprecation']).toEqual(notice);
    expect(warnings).toHaveLength(1);

    // The current version carries no notice.
    const current = await carol.client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-5' } });
    expect(current._meta?.['io.estate/deprecation']).toBeUndefined();

    // A session that asked for errors only still gets the notice, but no warning; a new session is warned again.
    const quiet = await open(ALICE);
    const quietWarnings = listen(quiet);
    await quiet.client.setLoggingLevel('error');
    expect((await callOld(quiet, 'PMT-6'))._meta?.['io.estate/deprecation']).toEqual(notice);
    const fresh = await open(ALICE);
    const freshWarnings = listen(fresh);
    await callOld(fresh, 'PMT-7');
    await waitFor(async () => (freshWarnings.length > 0 ? true : undefined), 'the warning in a new session');
    expect(quietWarnings).toEqual([]);

    const event = await feedEvent(stack.auditUrl, stack.admin, isCallersEvent);
    const data = event.data as { name: string; version: string; windowDays: number; callers: Array<{ principal: string; calls: number }>; total: number };
    expect(data).toMatchObject({ name: 'bank.lookup', version: '1.0.0', windowDays: 30, total: 1 });
    expect(data.callers.map((c) => c.principal)).toEqual(['alice']);
    expect(data.callers[0].calls).toBeGreaterThanOrEqual(1);
    // Recorded once: the follow-up is in the trail, hash-chained, and the chain still verifies.
    const recorded = await stack.audit('type=ToolVersionDeprecationCallers', 1);
    expect(recorded).toHaveLength(1);
    expect((await http('GET', `${stack.auditUrl}/v1/audit/verify`, stack.admin)).body).toMatchObject({ chainOk: true });
  }, 60000);
  it('keeps a range pin working on the newest deprecated version in it, takes a sunset set after the deprecation, and stops calls at the sunset before the sweep', async () => {
    const pinned = (v: string): ToolSpec => ({ ...lookup, name: 'bank.pinned', version: v });
    for (const v of ['1.0.0', '1.1.0', '1.1.1', '2.0.0']) await stack.publish(pinned(v));
    for (const v of ['1.0.0', '1.1.0', '1.1.1']) expect((await stack.lifecycle('bank.pinned', v, 'deprecate', 'use 2.0.0')).status).toBe(200);
    await waitFor(async () => (stack.edge.replica.get('bank.pinned')?.versions.filter((v) => v.status === 'deprecated').length === 3 ? true : undefined), 'the deprecations at the edge');
    const alice = await open(ALICE);
    const call = (pin: string, reference: string) => alice.client.callTool({ name: 'bank.pinned', arguments: { reference }, _meta: { 'io.estate/pins': { 'bank.pinned': pin } } });

    // A range pin is a pin: it gets the newest deprecated version it admits, with the notice an exact pin gets.
    const ranged = await call('^1.0.0', 'PMT-901');
    expect(ranged).toMatchObject({ structuredContent: { reference: 'PMT-901' } });
    expect(ranged._meta?.['io.estate/deprecation']).toEqual({ reason: 'use 2.0.0', since: expect.any(String), successor: '2.0.0' });
    expect((await call('1.1.1', 'PMT-902'))._meta?.['io.estate/deprecation']).toEqual(ranged._meta?.['io.estate/deprecation']);
    await stack.audit('principal=alice&type=ToolCallCompleted&tool=bank.pinned&version=1.1.1', 2);

    // The callers known, the date is set on the version already deprecated; every projection takes it.
    const sunset = new Date(Date.now() + 4000).toISOString();
    const dated = await http('POST', `${stack.registryUrl}/v1/tools/bank.pinned/versions/1.1.1/deprecate`, stack.admin, { reason: 'use 2.0.0', sunsetAt: sunset });
    expect(dated).toMatchObject({ status: 200, body: { type: 'ToolVersionDeprecated', data: { version: '1.1.1', sunsetAt: sunset } } });
    const atEdge = () => stack.edge.replica.get('bank.pinned')?.versions.find((v) => v.version === '1.1.1');
    await waitFor(async () => (atEdge()?.deprecation?.sunsetAt === sunset ? true : undefined), 'the sunset at the edge');
    // Still deprecated since it was first marked: setting the date is no new deprecation.
    const { since } = ranged._meta?.['io.estate/deprecation'] as { since: string };
    expect((await call('^1.0.0', 'PMT-903'))._meta?.['io.estate/deprecation']).toEqual({ reason: 'use 2.0.0', since, sunset, successor: '2.0.0' });
    const history = await http('GET', `${stack.registryUrl}/v1/tools/bank.pinned/history`, stack.admin);
    expect((history.body.changes as Array<{ change: string; version: string; details: Record<string, unknown> }>).filter((c) => c.version === '1.1.1').map((c) => [c.change, c.details.sunsetAt]))
      .toEqual([['published', undefined], ['deprecated', undefined], ['deprecated', sunset]]);
    await feedEvent(stack.auditUrl, stack.admin, (e) => JSON.stringify(e).includes(sunset));

    // Past the sunset the version is retired at the edge at once, not a sweep later.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(sunset) - Date.now()) + 50));
    await expect(call('1.1.1', 'PMT-904')).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('no version of bank.pinned you may use satisfies the pin "1.1.1"') });
    const after = await call('^1.0.0', 'PMT-905');
    expect(after._meta?.['io.estate/deprecation']).toMatchObject({ reason: 'use 2.0.0' });
    expect(after._meta?.['io.estate/deprecation']).not.toHaveProperty('sunset');
    // Still deprecated in the replica: the sweep had not retired it; the edge judged the sunset itself.
    expect(atEdge()?.status).toBe('deprecated');
  }, 60000);
});
