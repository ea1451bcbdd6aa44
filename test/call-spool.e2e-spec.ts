import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { topicName } from '@estate/events';
import { bankSpecs } from '../examples/bank/bank.specs';
import { startBankServer } from '../examples/bank/bank.server';
import { ADMIN, connect, http, spawnService, token, waitFor, type ChildService, type McpSession } from './support/estate.harness';
import { startEstateServices, type EstateServices } from './support/estate.stack';
import { freePort } from './support/infra';
import { startPrivateKafka, type PrivateKafka } from './support/private-kafka';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Records an edge's spool slot holds past its drained position, read as the spool's files say (segments, `drained`). */
function unsentIn(slot: string): number {
  const drained = existsSync(path.join(slot, 'drained')) ? JSON.parse(readFileSync(path.join(slot, 'drained'), 'utf8')) as { segment: number; offset: number } : { segment: 0, offset: 0 };
  let lines = 0;
  for (const file of readdirSync(slot).filter((f) => f.endsWith('.spool')).sort()) {
    const segment = Number(file.slice(0, -'.spool'.length));
    if (segment < drained.segment) continue;
    const text = readFileSync(path.join(slot, file)).subarray(segment === drained.segment ? drained.offset : 0).toString('utf8');
    lines += text.split('\n').length - 1;
  }
  return lines;
}

/** The estate with audit, the bank upstream registered and bank.lookup published. */
async function estateWithBank(brokers?: string[]): Promise<{ services: EstateServices; admin: string }> {
  const services = await startEstateServices({ name: 'call-spool', audit: true, brokers });
  const bank = await startBankServer({ port: 0 });
  services.onStop(bank.close);
  const admin = await token(ADMIN);
  expect((await http('POST', `${services.registryUrl}/v1/servers`, admin, { name: 'bank', url: bank.url, owner: 'payments-team' })).status).toBe(201);
  expect((await http('POST', `${services.registryUrl}/v1/tools`, admin, bankSpecs('bank')[0])).status).toBe(201);
  return { services, admin };
}

async function sessionSeeingLookup(mcpUrl: string, sub: string): Promise<McpSession> {
  const session = await waitFor(async () => connect(mcpUrl, await token({ sub, scope: 'bank:read', clearance: 'internal' })).catch(() => undefined), 'an MCP session', 30000);
  await waitFor(async () => ((await session.client.listTools()).tools.some((t) => t.name === 'bank.lookup') ? true : undefined), 'bank.lookup at the edge', 30000);
  return session;
}

/** `perSession` calls on each session at once; resolves when every one was answered. */
async function burst(sessions: McpSession[], perSession: number): Promise<number> {
  const answers = await Promise.all(sessions.map(async (s) => {
    let answered = 0;
    for (let i = 0; i < perSession; i += 1) {
      const result = await s.client.callTool({ name: 'bank.lookup', arguments: { reference: `PMT-${i + 1}` } });
      expect(result.isError).toBeFalsy();
      answered += 1;
    }
    return answered;
  }));
  return answers.reduce((a, b) => a + b, 0);
}

/** Waits for `count` ToolCallCompleted records of `principal` in the trail, then checks no more arrive. */
async function exactlyOnceInTrail(auditUrl: string, admin: string, principal: string, count: number, timeoutMs: number): Promise<void> {
  // Up to five rounds of 200 calls: more than one page of 500, so the cursor is followed.
  const query = async () => {
    const entries: Array<{ eventId: string; outcome: string }> = [];
    for (let cursor: string | null = ''; cursor !== null;) {
      const r = await http('GET', `${auditUrl}/v1/audit?type=ToolCallCompleted&principal=${principal}&limit=500${cursor ? `&cursor=${cursor}` : ''}`, admin);
      entries.push(...((r.body.entries ?? []) as typeof entries));
      cursor = (r.body.nextCursor ?? null) as string | null;
    }
    return entries;
  };
  await waitFor(async () => ((await query()).length >= count ? true : undefined), `${count} call records of ${principal}`, timeoutMs);
  await sleep(1500);
  const entries = await query();
  expect(entries).toHaveLength(count);
  expect(new Set(entries.map((e) => e.eventId)).size).toBe(count);
  expect(entries.every((e) => e.outcome === 'ok')).toBe(true);
}

describe('call records survive an edge killed with SIGKILL (real Kafka, PostgreSQL, edge as a child process)', () => {
  let services: EstateServices;
  let admin: string;
  let edge: ChildService | undefined;
  const sessions: McpSession[] = [];
  const spoolDir = mkdtempSync(path.join(tmpdir(), 'estate-spool-e2e-'));

  beforeAll(async () => {
    ({ services, admin } = await estateWithBank());
  }, 120000);

  afterAll(async () => {
    for (const s of sessions) await s.close().catch(() => undefined);
    await edge?.stop();
    await services?.stop();
    rmSync(spoolDir, { recursive: true, force: true });
  });

  const startEdge = async () => {
    const port = await freePort();
    edge = spawnService('apps/mcp-edge/src/main.js', { ...services.env, ESTATE_EDGE_PORT: String(port), ESTATE_CALL_SPOOL_DIR: spoolDir });
    return `http://127.0.0.1:${port}/mcp`;
  };

  it('answers a burst, dies right after the last answer, and a restarted edge delivers every answered call exactly once', async () => {
    const principal = `spool-${Date.now()}`;
    const root = path.join(spoolDir, topicName(services.env.ESTATE_TOPIC_PREFIX, 'calls'));
    let answered = 0;
    let left: string[] = [];
    // A kill that happens to land after the last batch was acknowledged proves nothing: go again
    // (each new edge first takes over what the last one left) until one leaves records unsent.
    for (let round = 0; round < 5 && left.length === 0; round += 1) {
      const mcpUrl = await startEdge();
      for (let i = 0; i < 8; i += 1) sessions.push(await sessionSeeingLookup(mcpUrl, principal));
      answered += await burst(sessions, 25);
      await edge!.stop('SIGKILL');
      expect(edge!.process.signalCode).toBe('SIGKILL');
      for (const s of sessions.splice(0)) await s.close().catch(() => undefined);
      left = readdirSync(root).map((s) => path.join(root, s)).filter((slot) => unsentIn(slot) > 0);
    }
    // What the dead edge had not sent yet is in its spool slot (the records already sent are not).
    expect(left).toHaveLength(1);
    expect(unsentIn(left[0])).toBeLessThanOrEqual(answered);

    await startEdge();
    await exactlyOnceInTrail(services.auditUrl!, admin, principal, answered, 60000);
    // The restarted edge took the dead one's slot over and, the bus having everything, left it empty.
    await waitFor(async () => (existsSync(left[0]) ? undefined : true), 'the dead edge\'s slot taken over');
  }, 300000);
});

describe('call records wait out a bus outage (a private Kafka broker, stopped and started)', () => {
  let kafka: PrivateKafka;
  let services: EstateServices;
  let admin: string;
  const sessions: McpSession[] = [];
  const spoolDir = mkdtempSync(path.join(tmpdir(), 'estate-spool-outage-'));

  beforeAll(async () => {
    kafka = await startPrivateKafka();
    ({ services, admin } = await estateWithBank(kafka.brokers));
  }, 240000);

  afterAll(async () => {
    for (const s of sessions) await s.close().catch(() => undefined);
    await services?.stop();
    await kafka?.stop();
    rmSync(spoolDir, { recursive: true, force: true });
  }, 120000);

  it('answers every call while the broker is down, and the trail has each one exactly once after it is back', async () => {
    const principal = `outage-${Date.now()}`;
    const edge = await services.startEdge({ ESTATE_CALL_SPOOL_DIR: spoolDir });
    for (let i = 0; i < 4; i += 1) sessions.push(await sessionSeeingLookup(edge.mcpUrl, principal));
    const before = await burst(sessions, 5);
    await exactlyOnceInTrail(services.auditUrl!, admin, principal, before, 30000);

    await kafka.kill();
    const during = await burst(sessions, 15);
    await sleep(1000);
    // Nothing reached the bus: the records wait in the spool (one line each).
    const root = path.join(spoolDir, topicName(services.env.ESTATE_TOPIC_PREFIX, 'calls'));
    const [slot] = readdirSync(root);
    expect(unsentIn(path.join(root, slot))).toBe(during);

    await kafka.start();
    await exactlyOnceInTrail(services.auditUrl!, admin, principal, before + during, 120000);
    // The drained position reaches its file a moment after the bus acknowledged (call.spool.ts).
    await waitFor(async () => (unsentIn(path.join(root, slot)) === 0 ? true : undefined), 'the spool drained on disk', 5000);
  }, 300000);
});
