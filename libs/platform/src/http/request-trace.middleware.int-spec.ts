import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createLogger } from '../logger';
import { startTracing, type Tracing } from '../tracing/tracing.sdk';
import { traceRequests } from './request-trace.middleware';

describe('request tracing on a real HTTP server', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing | undefined;
  let server: http.Server;
  let url: string;
  let lines: string[] = [];
  const seenCorrelation: string[] = [];

  beforeAll(async () => {
    tracing = startTracing({}, 'middleware-spec', { spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().trim().split('\n'));
        done();
      },
    });
    const logger = createLogger('middleware-spec', 'info', { format: 'json', destination: sink });
    server = http.createServer((req, res) =>
      traceRequests(req, res, () => {
        seenCorrelation.push(String(req.headers['x-correlation-id']));
        logger.info('handling');
        // Later, from a timer: the request's ids stay on its lines.
        setTimeout(() => {
          logger.info('answering');
          res.end('ok');
        }, 5);
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await tracing?.shutdown();
  });

  beforeEach(() => {
    lines = [];
    exporter.reset();
  });

  it("continues the caller's traceparent and puts its trace id and correlation id on every line of the request", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await fetch(`${url}/v1/things?secret=1`, { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01`, 'x-correlation-id': 'release-7' } });
    expect(await res.text()).toBe('ok');
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged.map((l) => l.msg)).toEqual(['handling', 'answering']);
    for (const line of logged) expect(line).toMatchObject({ traceId, correlationId: 'release-7', spanId: expect.stringMatching(/^[0-9a-f]{16}$/) });
    const [span] = exporter.getFinishedSpans();
    expect(span).toMatchObject({ name: 'GET /v1/things', attributes: { 'http.response.status_code': 200, 'url.path': '/v1/things' } });
    expect(span.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
  });

  it('gives a request without a correlation id a fresh one, which the handler sees too, and starts a new trace', async () => {
    await (await fetch(`${url}/healthz`)).text();
    await (await fetch(`${url}/healthz`)).text();
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const ids = [...new Set(logged.map((l) => l.correlationId))];
    expect(ids).toHaveLength(2);
    expect(seenCorrelation.slice(-2)).toEqual(ids);
    expect(new Set(logged.map((l) => l.traceId)).size).toBe(2);
    expect(exporter.getFinishedSpans().every((s) => s.parentSpanContext === undefined)).toBe(true);
  });
});
