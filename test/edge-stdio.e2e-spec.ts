import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { decodeJwt } from 'jose';
import { createLogger, issueDevToken } from '@estate/platform';
import { composeEstate } from '../apps/estate/src/estate.composition';
import { startBankServer, type BankServerHandle } from '../examples/bank/bank.server';
import { bankSpecs } from '../examples/bank/bank.specs';
import { EmbeddedEstateRunner } from './support/embedded.runner';
import { ADMIN, connect, http, spawnService, TEST_SECRET, token, waitFor } from './support/estate.harness';
import { createTestDatabase, freePort, kafkaBrokers, randomTopicPrefix, REPO_ROOT } from './support/infra';

const ALICE = { sub: 'alice', scope: 'bank:read', clearance: 'internal' };
const ENTRY = path.join(REPO_ROOT, 'dist/apps/mcp-edge/src/stdio/main.js');

type Json = Record<string, unknown>;

/** The stdio edge as a local client runs it: a child process spoken to line by line. */
class StdioPeer {
  readonly stdoutLines: string[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on('line', (line) => this.stdoutLines.push(line));
    child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  send(message: Json | string): void {
    this.child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  }

  messages(): Json[] {
    return this.stdoutLines.map((line) => JSON.parse(line) as Json);
  }

  answer(id: unknown, timeoutMs = 20000): Promise<Json> {
    return waitFor(async () => this.messages().find((m) => m.id === id && ('result' in m || 'error' in m)), `the answer to ${String(id)}`, timeoutMs);
  }
}

function spawnStdioEdge(env: Record<string, string>, entry: string[] = [ENTRY]): StdioPeer {
  const child = spawn(process.execPath, entry, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  return new StdioPeer(child);
}

describe('the stdio edge (npm run edge:stdio)', () => {
  const logger = createLogger('e2e', 'error');
  const stops: Array<() => Promise<void>> = [];
  let bank: BankServerHandle;
  let env: Record<string, string>;
  let preloadDir: string;

  beforeAll(async () => {
    const db = await createTestDatabase();
    stops.push(db.drop);
    bank = await startBankServer({ port: 0 });
    stops.push(bank.close);
    const prefix = randomTopicPrefix();
    const base = {
      ESTATE_JWT_SECRET: TEST_SECRET, ESTATE_TOPIC_PREFIX: prefix, KAFKA_BROKERS: kafkaBrokers().join(','),
      ESTATE_REGISTRY_PORT: '0', ESTATE_DISCOVERY_PORT: '0', ESTATE_DISCOVERY_GROUP: `discovery-${Date.now()}`,
    };
    const estate = await composeEstate({ env: base, databaseUrl: db.url, logger, services: ['registry', 'discovery'] });
    stops.push(estate.stop);
    const registry = { url: estate.registry?.url ?? '' };
    const admin = await token(ADMIN);
    expect((await http('POST', `${registry.url}/v1/servers`, admin, { name: 'bank', url: bank.url, owner: 'payments-team' })).status).toBe(201);
    expect((await http('POST', `${registry.url}/v1/tools`, admin, bankSpecs('bank')[0])).status).toBe(201);
    // A dependency that prints to stdout after start-up: exactly what breaks stdio servers in the field.
    preloadDir = mkdtempSync(path.join(os.tmpdir(), 'estate-stdio-'));
    const preload = path.join(preloadDir, 'stray-print.js');
    writeFileSync(preload, "for (const ms of [0, 300, 1500]) setTimeout(() => console.log('stray debug print from a dependency'), ms).unref();\n");
    env = {
      ESTATE_JWT_SECRET: TEST_SECRET, ESTATE_TOPIC_PREFIX: prefix, KAFKA_BROKERS: kafkaBrokers().join(','),
      ESTATE_STDIO_TOKEN: await token(ALICE), LOG_LEVEL: 'debug', NODE_OPTIONS: `--require ${preload}`,
    };
  }, 60000);

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    rmSync(preloadDir, { recursive: true, force: true });
  });

  it('answers garbage and out-of-order messages, serves a full session through to the bank, and keeps stdout clean', async () => {
    const peer = spawnStdioEdge(env);
    try {
      peer.send('this is not json');
      peer.send('{"jsonrpc":"2.0","id":"cut","method":');
      peer.send({ jsonrpc: '1.0', method: 'ping' });
      peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect(await peer.answer(1)).toMatchObject({ error: { code: -32600 } });
      const parseErrors = peer.messages().filter((m) => m.id === null);
      expect(parseErrors).toEqual([
        expect.objectContaining({ error: expect.objectContaining({ code: -32700 }) }),
        expect.objectContaining({ error: expect.objectContaining({ code: -32700 }) }),
        // Not JSON-RPC 2.0, so not a notification to drop: an invalid request, answered with id null.
        expect.objectContaining({ error: expect.objectContaining({ code: -32600, message: expect.stringContaining('jsonrpc must be "2.0"') }) }),
      ]);

      peer.send({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'stdio-e2e', version: '1.0.0' } } });
      expect(await peer.answer(2)).toMatchObject({
        result: { protocolVersion: '2025-06-18', serverInfo: { name: 'estate-edge' }, capabilities: { tools: { listChanged: true }, prompts: {}, resources: {} } },
      });
      peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      let id = 10;
      const tools = await waitFor(async () => {
        id += 1;
        peer.send({ jsonrpc: '2.0', id, method: 'tools/list' });
        const answer = (await peer.answer(id)) as { result?: { tools: Array<{ name: string }> } };
        return answer.result?.tools.some((t) => t.name === 'bank.lookup') ? answer.result.tools : undefined;
      }, 'bank.lookup to reach the stdio edge from Kafka', 30000);
      expect(tools.map((t) => t.name)).toEqual(['bank.lookup']);

      const before = bank.stats().total;
      peer.send({ jsonrpc: '2.0', id: 'call-1', method: 'tools/call', params: { name: 'bank.lookup', arguments: { reference: 'PMT-771' } } });
      expect(await peer.answer('call-1')).toMatchObject({ result: { structuredContent: { reference: 'PMT-771' } } });
      expect(bank.stats().total).toBe(before + 1);
      peer.send({ jsonrpc: '2.0', id: 'call-1', method: 'ping' });
      expect((await waitFor(async () => (peer.messages().filter((m) => m.id === 'call-1').length === 2 ? peer.messages() : undefined), 'the reused id answer'))
        .filter((m) => m.id === 'call-1')[1]).toMatchObject({ error: { code: -32600 } });

      await waitFor(async () => (peer.stderr.includes('stray debug print from a dependency') ? true : undefined), 'the stray print on stderr', 5000);
    } finally {
      peer.child.stdin.end();
    }
    expect(await peer.exited).toBe(0);
    expect(peer.stdoutLines.length).toBeGreaterThan(5);
    for (const line of peer.stdoutLines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(peer.stdoutLines.join('\n')).not.toContain('stray debug print');
    expect(peer.stderr).toContain('"msg":"mcp edge serving stdio"');
  }, 60000);

  it('sends a 2024-11-05 client only what that revision has, and keeps a _meta version inside its session', async () => {
    const peer = spawnStdioEdge(env);
    try {
      peer.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'stdio-older', version: '1.0.0' } } });
      // The completions capability first appears in 2025-03-26.
      expect((await peer.answer(1)).result).toEqual({
        protocolVersion: '2024-11-05', serverInfo: { name: 'estate-edge', version: '0.1.0' },
        capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, logging: {} },
      });
      peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      let id = 1;
      const tools = await waitFor(async () => {
        id += 1;
        // A version in _meta is no claim to be sessionless once the session is initialized.
        peer.send({ jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2024-11-05' } } });
        const answer = (await peer.answer(id)) as { result?: { tools: Json[] } };
        return answer.result?.tools.length ? answer.result.tools : undefined;
      }, 'bank.lookup at the stdio edge', 30000);
      expect(tools.map((tool) => Object.keys(tool).sort())).toEqual([['description', 'inputSchema', 'name']]);
      peer.send({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'bank.lookup', arguments: { reference: 'PMT-771' } } });
      const call = (await peer.answer('call')).result as Json;
      expect(Object.keys(call)).toEqual(['content']);
    } finally {
      peer.child.stdin.end();
    }
    expect(await peer.exited).toBe(0);
  }, 60000);

  it('answers and records a call written just before stdin closes, then exits 0', async () => {
    const peer = spawnStdioEdge(env);
    peer.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'stdio-eof', version: '1.0.0' } } });
    await peer.answer(1);
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await waitFor(async () => {
      peer.send({ jsonrpc: '2.0', id: `list-${Date.now()}`, method: 'tools/list' });
      await new Promise((resolve) => setTimeout(resolve, 200));
      return peer.messages().some((m) => JSON.stringify(m).includes('bank.lookup')) ? true : undefined;
    }, 'bank.lookup at the stdio edge', 30000);
    const before = bank.stats().total;
    // As `printf '…' | estate stdio` does: the last request, then the end of input at once.
    peer.send({ jsonrpc: '2.0', id: 'last', method: 'tools/call', params: { name: 'bank.lookup', arguments: { reference: 'PMT-771' } } });
    peer.child.stdin.end();
    expect(await peer.exited).toBe(0);
    expect(peer.messages().find((m) => m.id === 'last')).toMatchObject({ result: { structuredContent: { reference: 'PMT-771' } } });
    expect(bank.stats().total).toBe(before + 1);
    expect(peer.stderr).not.toMatch(/could not write a call record|spool is closed|AbortError/);
  }, 60000);

  it.each(['SIGTERM', 'SIGHUP'] as const)('estate stdio runs the same edge as a child process, keeps stdout clean, and passes %s on for a clean stop', async (signal) => {
    const peer = spawnStdioEdge(env, [path.join(REPO_ROOT, 'dist/apps/cli/src/main.js'), 'stdio']);
    peer.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cli-stdio', version: '1' } } });
    expect(await peer.answer(1)).toMatchObject({ result: { serverInfo: { name: 'estate-edge' } } });
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    let id = 1;
    await waitFor(async () => {
      id += 1;
      peer.send({ jsonrpc: '2.0', id, method: 'tools/list' });
      const answer = (await peer.answer(id)) as { result?: { tools: Array<{ name: string }> } };
      return answer.result?.tools.some((t) => t.name === 'bank.lookup') ? true : undefined;
    }, 'bank.lookup through estate stdio', 30000);
    // The edge is a process of its own, not the CLI: its log lines carry its own pid.
    const edgePid = (JSON.parse(peer.stderr.split('\n').find((l) => l.includes('"msg":"mcp edge serving stdio"')) ?? '{}') as { pid?: number }).pid;
    expect(edgePid).toEqual(expect.any(Number));
    expect(edgePid).not.toBe(peer.child.pid);
    await waitFor(async () => (peer.stderr.includes('stray debug print from a dependency') ? true : undefined), 'the stray print on stderr', 5000);

    peer.child.kill(signal);
    expect(await peer.exited).toBe(0);
    expect(peer.stderr).toContain('"msg":"stopped"');
    expect(existsSync(`/proc/${edgePid}`)).toBe(false);
    for (const line of peer.stdoutLines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    peer.child.stdin.end();
  }, 60000);

  it('keeps its one session while stdin is open: with ESTATE_SESSION_IDLE_SECONDS=3, a request every second for 8 s is answered, and so is one after 5 s of silence', async () => {
    const peer = spawnStdioEdge({ ...env, ESTATE_SESSION_IDLE_SECONDS: '3' });
    try {
      peer.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'busy', version: '1' } } });
      expect(await peer.answer('init')).toMatchObject({ result: { protocolVersion: '2025-06-18' } });
      peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      for (let second = 1; second <= 8; second += 1) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        peer.send({ jsonrpc: '2.0', id: `busy-${second}`, method: 'ping' });
        expect(await peer.answer(`busy-${second}`, 3000)).toMatchObject({ result: {} });
      }
      // A desktop client may leave its server quiet for longer than any idle time: stdin still open is the session still wanted.
      await new Promise((resolve) => setTimeout(resolve, 5000));
      peer.send({ jsonrpc: '2.0', id: 'after-silence', method: 'tools/list' });
      expect(await peer.answer('after-silence', 3000)).toMatchObject({ result: { tools: expect.any(Array) } });
      expect(peer.stderr).not.toContain('closing idle session');
    } finally {
      peer.child.stdin.end();
    }
    expect(await peer.exited).toBe(0);
  }, 60000);

  it('serves the configured local principal under ESTATE_AUTH=none, with no token at all', async () => {
    const { ESTATE_STDIO_TOKEN: _token, ESTATE_JWT_SECRET: _secret, ...rest } = env;
    const peer = spawnStdioEdge({ ...rest, ESTATE_STDIO_TOKEN: '', ESTATE_JWT_SECRET: '', ESTATE_AUTH: 'none', ESTATE_LOCAL_SCOPES: 'bank:read' });
    try {
      peer.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'local', version: '1' } } });
      expect(await peer.answer(1)).toMatchObject({ result: { protocolVersion: '2025-11-25' } });
      peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      let id = 1;
      await waitFor(async () => {
        id += 1;
        peer.send({ jsonrpc: '2.0', id, method: 'tools/list' });
        const answer = (await peer.answer(id)) as { result?: { tools: Array<{ name: string }> } };
        return answer.result?.tools.some((t) => t.name === 'bank.lookup') ? true : undefined;
      }, 'the local principal to see bank.lookup', 30000);
    } finally {
      peer.child.stdin.end();
    }
    expect(await peer.exited).toBe(0);
    for (const line of peer.stdoutLines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
  }, 60000);

  it('refuses every request once the token it was started with expires, saying so, and keeps stdout clean', async () => {
    const short = await issueDevToken(TEST_SECRET, ALICE, { expiresIn: '8s' });
    const expiresAt = decodeJwt(short).exp! * 1000;
    const peer = spawnStdioEdge({ ...env, ESTATE_STDIO_TOKEN: short });
    try {
      peer.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'short', version: '1' } } });
      expect(await peer.answer(1)).toMatchObject({ result: { protocolVersion: '2025-06-18' } });
      peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      peer.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
      expect(await peer.answer(2)).toMatchObject({ result: {} });
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 500));
      peer.send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
      peer.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'bank.lookup', arguments: { reference: 'PMT-771' } } });
      for (const id of [3, 4]) {
        expect(await peer.answer(id)).toMatchObject({ error: { code: -32000, message: expect.stringContaining('the token in ESTATE_STDIO_TOKEN expired at') } });
      }
    } finally {
      peer.child.stdin.end();
    }
    expect(await peer.exited).toBe(0);
    for (const line of peer.stdoutLines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
  }, 60000);

  it('refuses to start with a token this estate did not sign, and says why on stderr only', async () => {
    const peer = spawnStdioEdge({ ...env, ESTATE_STDIO_TOKEN: 'not.a.token' });
    expect(await peer.exited).toBe(1);
    expect(peer.stdoutLines.filter((line) => !line.startsWith('{'))).toEqual([]);
    expect(peer.stdoutLines.join('')).not.toContain('stray');
    expect(peer.stderr).toContain('ESTATE_STDIO_TOKEN is not a valid token for this estate');
  });
});

/** The `mcpServers` entry npm start prints for desktop clients that spawn a stdio server. */
function printedStdioConfig(banner: string): { command: string; args: string[]; env: Record<string, string> } {
  const start = banner.indexOf('{', banner.indexOf('Desktop client (stdio) configuration'));
  const end = banner.indexOf('\n}', start) + 2;
  return (JSON.parse(banner.slice(start, end)) as { mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }> }).mcpServers['estate-stdio'];
}

describe('joining npm start without Kafka (the durable log): estate stdio and services started on their own', () => {
  let dataDir: string;
  let estate: EmbeddedEstateRunner;
  let bank: BankServerHandle;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'estate-stdio-embedded-'));
    estate = new EmbeddedEstateRunner(dataDir);
    bank = await startBankServer({ port: 0 });
    await estate.start();
  }, 120000);

  afterAll(async () => {
    await estate?.dispose();
    await bank?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('joins through the printed desktop configuration: lists, hears list_changed (also after npm start restarts), and its calls reach the audit trail', async () => {
    const admin = await estate.token(ADMIN);
    expect((await http('POST', `${estate.urls.registry}/v1/servers`, admin, { name: 'bank', url: bank.url, owner: 'payments-team' })).status).toBe(201);
    const lookup = bankSpecs('bank')[0];
    expect((await http('POST', `${estate.urls.registry}/v1/tools`, admin, lookup)).status).toBe(201);

    const printed = printedStdioConfig(estate.child?.output() ?? '');
    expect(printed.env.ESTATE_DATA_DIR).toBe(path.resolve(dataDir));
    // Exactly what a desktop client runs: the printed command, arguments and environment, from another directory.
    const transport = new StdioClientTransport({ command: printed.command, args: printed.args, env: { ...printed.env, ESTATE_STDIO_TOKEN: await estate.token(ALICE) }, cwd: os.tmpdir(), stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'desktop', version: '1.0.0' });
    const listChanged: number[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      listChanged.push(Date.now());
    });
    await client.connect(transport);
    try {
      await waitFor(async () => ((await client.listTools()).tools.some((t) => t.name === 'bank.lookup') ? true : undefined), 'bank.lookup over stdio', 30000);
      expect(stderr).toContain('joining the embedded estate');

      // The notification for bank.lookup's arrival may still be on its way; count only what follows the publish.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const before = listChanged.length;
      const next = { ...lookup, version: '1.1.0', description: `${lookup.description} Now with memo.` };
      expect((await http('POST', `${estate.urls.registry}/v1/tools`, admin, next)).status).toBe(201);
      await waitFor(async () => (listChanged.length > before ? true : undefined), 'list_changed over stdio', 30000);
      expect((await client.listTools()).tools.find((t) => t.name === 'bank.lookup')?.description).toBe(next.description);

      const result = await client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-771' } });
      expect(result.structuredContent).toMatchObject({ reference: 'PMT-771' });

      // npm start restarted under the running desktop session: the session reconnects to the same log.
      expect(await estate.interrupt()).toBe(0);
      await estate.start();
      await new Promise((resolve) => setTimeout(resolve, 500));
      const heard = listChanged.length;
      const third = { ...next, version: '1.2.0', description: `${lookup.description} After a restart.` };
      expect((await http('POST', `${estate.urls.registry}/v1/tools`, admin, third)).status).toBe(201);
      await waitFor(async () => (listChanged.length > heard ? true : undefined), 'list_changed over stdio after npm start restarted', 30000);
      expect((await client.listTools()).tools.find((t) => t.name === 'bank.lookup')?.description).toBe(third.description);
    } finally {
      await client.close();
    }
    const calls = await waitFor(async () => {
      const r = await http('GET', `${estate.urls.audit}/v1/audit?principal=alice&type=ToolCallCompleted`, admin);
      const entries = (r.body.entries ?? []) as Array<Record<string, unknown>>;
      return entries.length > 0 ? entries : undefined;
    }, 'the stdio call in the embedded audit trail', 30000);
    expect(calls).toEqual([expect.objectContaining({ principal: 'alice', tool: 'bank.lookup', version: '1.1.0', outcome: 'ok' })]);
  }, 120000);

  it('lets an HTTP edge started on its own join the same log, and tells a service with nothing to join why it stops', async () => {
    const port = await freePort();
    const edge = spawnService('apps/mcp-edge/src/main.js', {
      ESTATE_DATA_DIR: dataDir, KAFKA_BROKERS: '', DATABASE_URL: '', ESTATE_JWT_SECRET: '', ESTATE_TOPIC_PREFIX: '', ESTATE_EDGE_PORT: String(port), ESTATE_CONSOLE_PORT: '0', LOG_LEVEL: 'info',
    });
    try {
      const agent = await waitFor(async () => connect(`http://127.0.0.1:${port}/mcp`, await estate.token(ALICE)), 'the second edge to listen', 30000);
      try {
        await waitFor(async () => ((await agent.client.listTools()).tools.some((t) => t.name === 'bank.lookup') ? true : undefined), 'bank.lookup at the second edge', 30000);
      } finally {
        await agent.close();
      }
      expect(edge.output()).toContain('joining the embedded estate');
    } finally {
      await edge.stop('SIGTERM');
    }

    const nowhere = mkdtempSync(path.join(os.tmpdir(), 'estate-no-estate-'));
    try {
      const audit = spawnService('apps/audit/src/main.js', { ESTATE_DATA_DIR: nowhere, KAFKA_BROKERS: '', DATABASE_URL: '', ESTATE_BUS: '' });
      await waitFor(async () => (audit.process.exitCode !== null ? true : undefined), 'the lone audit to stop', 20000);
      expect(audit.process.exitCode).toBe(1);
      expect(audit.output()).toContain(`KAFKA_BROKERS is not set and no embedded estate is running (${path.join(nowhere, 'estate.json')} does not exist)`);
    } finally {
      rmSync(nowhere, { recursive: true, force: true });
    }
  }, 90000);
});
