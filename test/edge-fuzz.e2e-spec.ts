import { request } from 'node:http';
import fc from 'fast-check';
import { issueDevToken } from '@estate/platform';
import { freePort } from './support/infra';
import { ADMIN, connect, spawnService, token, waitFor, type ChildService, type McpSession } from './support/estate.harness';
import { ALICE, startEdgeStack, type EdgeStack } from './support/edge-stack';
import { RawSession, parseSse } from './support/edge-wire';
import { fuzzCases, type FuzzCase, type FuzzTargets } from './support/edge-fuzz.cases';

const RUNS = 10000;
const CONCURRENCY = 16;
const SEED = 20251125;
const CAROL = { sub: 'carol', scope: 'bank:read', clearance: 'internal' };
const INTERNALS = /\bat \S+ \(|\.(ts|js):\d+|node_modules|\/work\/|TypeORM|kafkajs|ZodError|EdgeSession|SessionManager|StreamableHTTP|TypeError|ReferenceError/i;

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** Sends one case; an SSE answer to a GET stays open by design, so only its head is read. */
function send(url: string, fuzz: FuzzCase): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: fuzz.method, headers: fuzz.headers, timeout: 15000 }, (res) => {
      const contentType = String(res.headers['content-type'] ?? '');
      if (fuzz.method === 'GET' && res.statusCode === 200 && contentType.startsWith('text/event-stream')) {
        req.destroy();
        return resolve({ status: 200, contentType, text: '' });
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 15 s')));
    req.on('error', reject);
    req.end(fuzz.body);
  });
}

function isErrorResponse(value: unknown): boolean {
  const m = value as { jsonrpc?: unknown; error?: { code?: unknown; message?: unknown } };
  return m?.jsonrpc === '2.0' && Number.isInteger(m.error?.code) && typeof m.error?.message === 'string';
}

/** Why an answer breaks the contract, or null when it is one of the allowed shapes. */
function violation(fuzz: FuzzCase, answer: Answer): string | null {
  if (INTERNALS.test(answer.text)) return 'leaks internals';
  if (answer.status === 202) return answer.text === '' ? null : '202 with a body';
  if (answer.status === 200 && fuzz.method === 'DELETE') return answer.text === '' ? null : 'DELETE 200 with a body';
  if (answer.status === 200 && answer.contentType.startsWith('text/event-stream')) {
    const messages = parseSse(answer.text).filter((e) => e.data.trim() !== '');
    const valid = messages.every((e) => {
      const m = JSON.parse(e.data) as { jsonrpc?: unknown; result?: unknown };
      return m.jsonrpc === '2.0' && (m.result !== undefined || isErrorResponse(m) || typeof (m as { method?: unknown }).method === 'string');
    });
    return valid ? null : 'SSE frame that is not JSON-RPC';
  }
  // A request that was read but whose params do not fit its method is answered with its JSON-RPC error.
  if (answer.status === 200 && answer.contentType.startsWith('application/json')) {
    return isErrorResponse(JSON.parse(answer.text)) ? null : '200 JSON that is not a JSON-RPC error';
  }
  if (answer.status >= 400 && answer.status < 500) {
    if (!answer.contentType.startsWith('application/json')) return `${answer.status} without a JSON body`;
    const body = JSON.parse(answer.text) as unknown;
    const ok = Array.isArray(body) ? body.length > 0 && body.every(isErrorResponse) : isErrorResponse(body);
    return ok ? null : `${answer.status} whose body is not a JSON-RPC error`;
  }
  return `unexpected status ${answer.status}`;
}

async function listAndCall(session: McpSession): Promise<void> {
  expect((await session.client.listTools()).tools.map((t) => t.name)).toEqual(['bank.lookup']);
  const result = await session.client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-42' } });
  expect(result.isError).toBeFalsy();
  expect(result.structuredContent).toMatchObject({ reference: 'PMT-42' });
}

describe('the edge under 10,000 hostile requests', () => {
  let stack: EdgeStack;
  let edge: ChildService;
  let mcpUrl: string;

  beforeAll(async () => {
    stack = await startEdgeStack();
    const port = await freePort();
    edge = spawnService('apps/mcp-edge/src/main.js', {
      ...stack.env,
      ESTATE_EDGE_PORT: String(port),
      ESTATE_EDGE_GROUP: `edge-fuzz-${Date.now()}`,
      ESTATE_ALLOWED_ORIGINS: 'https://app.example',
      ESTATE_MAX_BODY_BYTES: '65536',
      LOG_LEVEL: 'error',
    });
    mcpUrl = `http://127.0.0.1:${port}/mcp`;
    await waitFor(async () => {
      const status = await fetch(`http://127.0.0.1:${port}/v1/status`, { headers: { authorization: `Bearer ${await token(ADMIN)}` } });
      return status.ok && ((await status.json()) as { tools: number }).tools > 0 ? true : undefined;
    }, 'the edge child to serve the catalog', 60000);
  }, 120000);

  afterAll(async () => {
    await edge?.stop();
    await stack?.stop();
  });

  it('answers every one with a JSON-RPC error, 202 or a valid SSE response, stays up, and keeps serving another principal', async () => {
    const carol = await connect(mcpUrl, await token(CAROL));
    try {
      await listAndCall(carol);
      const carolSessionId = (carol.client.transport as { sessionId?: string } | undefined)?.sessionId ?? '';
      const versions = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
      const own = await Promise.all([...versions, ...versions].map((v) => RawSession.open(mcpUrl, ALICE, v)));
      const targets: FuzzTargets = {
        sessions: own.slice(2).map((s) => s.id),
        deletable: own.slice(0, 2).map((s) => s.id),
        foreignSessions: [carolSessionId],
        bearer: own[0].bearer,
        forgedBearer: await issueDevToken('not-the-secret-0123456789abcdef', ALICE),
      };
      const cases = fc.sample(fuzzCases(targets), { numRuns: RUNS, seed: SEED });
      const failures: Array<{ fuzz: FuzzCase; problem: string }> = [];
      const statuses = new Map<number, number>();
      let next = 0;
      const started = Date.now();
      const worker = async () => {
        while (next < cases.length) {
          const fuzz = cases[next++];
          try {
            const answer = await send(mcpUrl, fuzz);
            statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
            const problem = violation(fuzz, answer);
            if (problem) failures.push({ fuzz, problem: `${problem}: ${answer.text.slice(0, 300)}` });
          } catch (error) {
            failures.push({ fuzz, problem: `no HTTP answer: ${String(error)}` });
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      const seconds = (Date.now() - started) / 1000;
      const cpu = process.cpuUsage();
      process.stderr.write(`edge fuzz: ${RUNS} requests in ${seconds.toFixed(1)} s = ${(RUNS / seconds).toFixed(0)} req/s (seed ${SEED}, concurrency ${CONCURRENCY}); statuses ${JSON.stringify(Object.fromEntries(statuses))}; test process cpu ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s\n`);
      expect(failures.slice(0, 5).map((f) => ({ problem: f.problem, method: f.fuzz.method, headers: f.fuzz.headers, body: String(f.fuzz.body).slice(0, 200) }))).toEqual([]);
      expect(edge.process.exitCode).toBeNull();
      expect(edge.process.signalCode).toBeNull();
      expect((await fetch(mcpUrl.replace('/mcp', '/healthz'))).status).toBe(200);
      await listAndCall(carol);
    } finally {
      await carol.close();
    }
  }, 180000);
});
