import { Writable } from 'node:stream';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { bindLogIds, createLogger, type LogFormat } from './logger';
import { withCorrelation } from './tracing/correlation';
import { withSpan } from './tracing/tracing';
import { startTracing, type Tracing } from './tracing/tracing.sdk';

/** Collects what the logger writes, as a stream (pino-pretty needs one) and as pino's destination. */
function capture(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

async function logged(format: LogFormat, isTTY: boolean, write: (logger: ReturnType<typeof createLogger>) => Promise<void> | void): Promise<string> {
  const out = capture();
  const logger = createLogger('logger-spec', 'info', { format, isTTY, destination: out.stream });
  await write(logger);
  await new Promise((resolve) => setImmediate(resolve));
  return out.text();
}

describe('logger', () => {
  let tracing: Tracing | undefined;
  const exporter = new InMemorySpanExporter();

  beforeAll(() => {
    tracing = startTracing({}, 'logger-spec', { spanProcessors: [new SimpleSpanProcessor(exporter)] });
  });

  afterAll(async () => {
    await tracing?.shutdown();
  });

  it('writes one JSON object a line when stderr is not a terminal', async () => {
    const text = await logged('auto', false, (logger) => logger.info({ tool: 'bank.lookup' }, 'published'));
    const lines = text.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ level: 30, name: 'logger-spec', tool: 'bank.lookup', msg: 'published' });
  });

  it('writes readable lines on a terminal, and when LOG_FORMAT=pretty asks for them anywhere', async () => {
    for (const [format, tty] of [['auto', true], ['pretty', false]] as const) {
      const raw = await logged(format, tty, (logger) => logger.warn({ tool: 'bank.lookup' }, 'published'));
      // Colours only for a terminal.
      expect(raw.includes('\u001b[')).toBe(tty);
      const text = raw.replace(/\u001b\[[0-9;]*m/g, '');
      expect(text).toMatch(/WARN.*\(logger-spec\): published/);
      expect(text).toContain('tool: "bank.lookup"');
      expect(() => JSON.parse(text)).toThrow();
    }
  });

  it('LOG_FORMAT=json keeps JSON on a terminal', async () => {
    const text = await logged('json', true, (logger) => logger.info('hello'));
    expect(JSON.parse(text)).toMatchObject({ msg: 'hello' });
  });

  it('puts the active trace and span ids and the correlation id on every line of a request', async () => {
    let ids: { traceId: string; spanId: string } | undefined;
    const text = await logged('json', false, (logger) =>
      withCorrelation('corr-42', () =>
        withSpan('work', {}, () => {
          logger.info('inside');
          exporter.reset();
        }),
      ).then(() => {
        const span = exporter.getFinishedSpans()[0];
        ids = { traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };
        logger.info('outside');
      }),
    );
    const [inside, outside] = text.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(ids?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(inside).toMatchObject({ msg: 'inside', traceId: ids?.traceId, spanId: ids?.spanId, correlationId: 'corr-42' });
    expect(outside.msg).toBe('outside');
    expect(outside).not.toHaveProperty('traceId');
    expect(outside).not.toHaveProperty('correlationId');
  });

  it("a logger bound to a request's ids writes each id once, with the active span's id beside them", async () => {
    const text = await logged('json', false, (logger) =>
      withCorrelation('from-context', () => withSpan('work', {}, () => bindLogIds(logger, { traceId: 'a'.repeat(32), correlationId: 'bound' }).info('inside'))),
    );
    expect(text.match(/"correlationId"/g)).toHaveLength(1);
    expect(text.match(/"traceId"/g)).toHaveLength(1);
    expect(JSON.parse(text)).toMatchObject({ traceId: 'a'.repeat(32), correlationId: 'bound', spanId: expect.stringMatching(/^[0-9a-f]{16}$/) });
  });

  it('redacts secrets in pretty lines too', async () => {
    const text = await logged('pretty', false, (logger) => logger.info({ headers: { authorization: 'Bearer abc.def' } }, 'request'));
    expect(text).not.toContain('abc.def');
    expect(text).toContain('[redacted]');
  });
});
