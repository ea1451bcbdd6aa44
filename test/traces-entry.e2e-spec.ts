import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { spawnService, TEST_SECRET, waitFor } from './support/estate.harness';
import { createTestDatabase, freePort, kafkaBrokers, randomTopicPrefix, REPO_ROOT } from './support/infra';

/** A stand-in OTLP/HTTP collector: keeps the path and raw body of every export it receives. */
async function startCollector(): Promise<{ url: string; exports: Array<{ path: string; body: Buffer }>; close(): Promise<void> }> {
  const exports: Array<{ path: string; body: Buffer }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      exports.push({ path: req.url ?? '', body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

describe('tracing switched on by the standard OTEL variables in the entry points', () => {
  it('a standalone service exports its request spans over OTLP to OTEL_EXPORTER_OTLP_ENDPOINT and flushes them on SIGTERM', async () => {
    const db = await createTestDatabase();
    const collector = await startCollector();
    const port = await freePort();
    const registry = spawnService('apps/registry/src/main.js', {
      DATABASE_URL: db.url, KAFKA_BROKERS: kafkaBrokers().join(','), ESTATE_TOPIC_PREFIX: randomTopicPrefix(),
      ESTATE_JWT_SECRET: TEST_SECRET, ESTATE_REGISTRY_PORT: String(port), OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, LOG_LEVEL: 'info',
    });
    try {
      const traceId = 'a1'.repeat(16);
      const answer = await waitFor(async () => {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { traceparent: `00-${traceId}-${'b2'.repeat(8)}-01` } });
        return res.status;
      }, 'the registry to answer', 30000);
      expect(answer).toBe(200);
    } finally {
      await registry.stop('SIGTERM');
      await collector.close();
      await db.drop();
    }
    expect(registry.process.exitCode).toBe(0);
    const traces = collector.exports.filter((e) => e.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    // OTLP protobuf keeps strings as UTF-8 bytes and ids as raw bytes: the span, its service and the caller's trace id are in the export.
    const body = Buffer.concat(traces.map((t) => t.body));
    expect(body.includes('GET /healthz')).toBe(true);
    expect(body.includes('estate-registry')).toBe(true);
    expect(body.includes(Buffer.from('a1'.repeat(16), 'hex'))).toBe(true);
    // Logs were JSON (stderr is a pipe here), never the readable format.
    const firstLog = registry.output().split('\n').find((line) => line.startsWith('{'));
    expect(firstLog && JSON.parse(firstLog)).toMatchObject({ name: 'registry' });
  }, 60000);

  it('the stdio edge with OTEL_TRACES_EXPORTER=console prints spans on stderr and keeps stdout protocol-only', async () => {
    const entry = path.join(REPO_ROOT, 'dist/apps/mcp-edge/src/stdio/main.js');
    const child = spawn(process.execPath, [entry], {
      cwd: REPO_ROOT,
      env: { ...process.env, KAFKA_BROKERS: kafkaBrokers().join(','), ESTATE_TOPIC_PREFIX: randomTopicPrefix(), ESTATE_AUTH: 'none', OTEL_TRACES_EXPORTER: 'console', LOG_LEVEL: 'info' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    let stderr = '';
    createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const answer = (id: number) => waitFor(async () => lines.map((l) => JSON.parse(l) as { id?: unknown }).find((m) => m.id === id), `answer ${id}`, 30000);
    try {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'traces-e2e', version: '1' } } })}\n`);
      await answer(1);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'bank.nothing', arguments: {} } })}\n`);
      expect(await answer(2)).toMatchObject({ error: { code: -32601 } });
    } finally {
      child.stdin.end();
    }
    expect(await exited).toBe(0);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(lines.join('\n')).not.toContain('edge tools/call');
    expect(stderr).toContain("name: 'edge tools/call'");
  }, 60000);
});
