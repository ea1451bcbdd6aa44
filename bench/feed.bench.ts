/**
 * The change feed under load (issue 11): one event fanned out to 1,000 SSE subscribers, and
 * webhook delivery throughput to a local receiver. Runs the built embedded estate (`npm run build`
 * first): `node -r @swc-node/register bench/feed.bench.ts [subscribers] [webhook events]`, with
 * KAFKA_BROKERS for Kafka, without for the embedded log. Prints one JSON line of figures.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { issueDevToken } from '@estate/platform';
import { BENCH_SECRET } from './support/edge.launcher';
import { startBenchEstate } from './support/estate.launcher';
import { latencyStats } from './support/load.runner';

const ADMIN = { sub: 'bench-admin', scope: 'estate:admin estate:publish estate:audit', clearance: 'restricted' };
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

function request(method: string, url: string, token: string, body?: unknown): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method, agent,
      headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

function spec(tool: string, minor: number): Record<string, unknown> {
  return {
    name: tool, version: `1.${minor}.0`, title: `Bench tool ${tool}`, description: `A tool the feed benchmark publishes; revision ${minor}.`,
    inputSchema: { type: 'object', properties: { id: { type: 'string', maxLength: 64 } }, required: ['id'] },
    sideEffect: 'read', requiredScopes: ['bench:read'], dataClassification: 'internal', tenants: [], owner: 'bench-team',
    upstream: { server: 'bench', tool: 'noop' },
  };
}

async function publish(registry: string, token: string, tool: string, minor: number): Promise<number> {
  const answer = await request('POST', `${registry}/v1/tools`, token, spec(tool, minor));
  if (answer.status !== 201) throw new Error(`publishing ${tool} 1.${minor}.0 answered ${answer.status}: ${answer.text}`);
  return performance.now();
}

/** One subscriber: the time each awaited marker first appears in its stream. */
interface Subscriber { seen: Map<string, number>; buffer: string; close(): void }

function subscribe(url: string, token: string, markers: () => string[]): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const sub: Subscriber = { seen: new Map(), buffer: '', close: () => req.destroy() };
    const req = http.get(url, { agent, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        sub.buffer = (sub.buffer + chunk).slice(-4096);
        for (const marker of markers()) if (!sub.seen.has(marker) && sub.buffer.includes(marker)) sub.seen.set(marker, performance.now());
      });
      resolve(sub);
    });
    req.on('error', () => undefined);
  });
}

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}

async function fanOut(audit: string, registry: string, token: string, subscribers: number, events: number) {
  let awaited: string[] = [];
  const subs: Subscriber[] = [];
  for (let i = 0; i < subscribers; i += 50) {
    subs.push(...await Promise.all(Array.from({ length: Math.min(50, subscribers - i) }, () => subscribe(`${audit}/v1/events/stream?tools=bench.fan`, token, () => awaited))));
  }
  const latencies: number[] = [];
  let missed = 0;
  for (let k = 0; k < events; k += 1) {
    const marker = `"version":"1.${k}.0"`;
    awaited = [marker];
    const published = await publish(registry, token, 'bench.fan', k);
    await until(() => subs.every((s) => s.seen.has(marker)), 15_000);
    for (const s of subs) {
      const at = s.seen.get(marker);
      if (at === undefined) missed += 1;
      else latencies.push(Math.max(0, at - published));
    }
  }
  for (const s of subs) s.close();
  return { subscribers, events, missed, ...latencyStats(latencies) };
}

async function webhooks(audit: string, registry: string, token: string, total: number) {
  const arrivals: Array<{ at: number; tool: string; version: string; id: string }> = [];
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const event = JSON.parse(body) as { id: string; subject: string; data: { spec?: { version: string } } };
      arrivals.push({ at: performance.now(), tool: event.subject, version: event.data.spec?.version ?? '', id: event.id });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const created = await request('POST', `${audit}/v1/subscriptions`, token, { url, filter: { tools: ['bench.wh*'] } });
  if (created.status !== 201) throw new Error(`subscribing answered ${created.status}: ${created.text}`);
  const tools = 16;
  const perTool = Math.ceil(total / tools);
  let lastPublished = 0;
  await Promise.all(Array.from({ length: tools }, async (_, t) => {
    for (let k = 0; k < perTool; k += 1) lastPublished = Math.max(lastPublished, await publish(registry, token, `bench.wh${t}`, k));
  }));
  const expected = tools * perTool;
  await until(() => new Set(arrivals.map((a) => a.id)).size >= expected, 120_000);
  receiver.close();
  const unique = new Set(arrivals.map((a) => a.id)).size;
  const inOrder = Array.from({ length: tools }, (_, t) => arrivals.filter((a) => a.tool === `bench.wh${t}`).map((a) => Number(a.version.split('.')[1])))
    .every((versions) => versions.every((v, i) => i === 0 || v >= versions[i - 1]));
  const first = Math.min(...arrivals.map((a) => a.at));
  const last = Math.max(...arrivals.map((a) => a.at));
  return {
    events: expected, delivered: unique, duplicates: arrivals.length - unique, inOrderPerTool: inOrder,
    perSecond: Math.round(unique / ((last - first) / 1000)), lagAfterLastPublishMs: Math.round(last - lastPublished),
  };
}

async function main(): Promise<void> {
  const subscribers = Number(process.argv[2] ?? 1000);
  const webhookEvents = Number(process.argv[3] ?? 800);
  process.env.ESTATE_WEBHOOK_ALLOW = '127.0.0.1/32';
  process.env.ESTATE_WEBHOOK_POLL_MS = process.env.ESTATE_WEBHOOK_POLL_MS ?? '200';
  const brokers = process.env.KAFKA_BROKERS ? process.env.KAFKA_BROKERS.split(',') : undefined;
  const estate = await startBenchEstate(brokers);
  try {
    const audit = /audit\s+(http:\/\/\S+)/.exec(estate.child.output())?.[1];
    if (!audit) throw new Error('no audit URL in the banner');
    const token = await issueDevToken(BENCH_SECRET, ADMIN);
    const server = await request('POST', `${estate.registry}/v1/servers`, token, { name: 'bench', url: 'http://127.0.0.1:9/mcp', owner: 'bench-team' });
    if (server.status !== 201) throw new Error(`registering the bench server answered ${server.status}: ${server.text}`);
    const fan = await fanOut(audit, estate.registry, token, subscribers, 5);
    const hooks = await webhooks(audit, estate.registry, token, webhookEvents);
    process.stdout.write(`${JSON.stringify({ bus: brokers ? 'kafka' : 'embedded', fanOut: fan, webhooks: hooks })}\n`);
  } finally {
    await estate.stop();
  }
}

void main().then(() => process.exit(0), (error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
