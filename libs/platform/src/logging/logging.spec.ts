import { Writable } from 'node:stream';
import { createLogger } from '../logger';
import { eventLogger, correlationHeaders } from './event.logger';
import { LazyLogger } from './lazy.logger';
import { correlationOf, derivedTraceId, logIdsOf, traceIdOf } from './log.ids';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

/** A JSON logger at `level` whose lines are kept, parsed. */
function captured(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>));
      done();
    },
  });
  return { logger: createLogger('logging-spec', level, { format: 'json', destination: sink }), lines };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('log ids without a tracer', () => {
  it("takes the caller's correlation id (x-correlation-id, else x-request-id), cut to 128 characters, else makes one", () => {
    expect(correlationOf({ 'x-correlation-id': 'release-7', 'x-request-id': 'r' })).toBe('release-7');
    expect(correlationOf({ 'x-request-id': 'r-1' })).toBe('r-1');
    expect(correlationOf({ 'x-correlation-id': 'x'.repeat(500) })).toHaveLength(128);
    const fresh = [correlationOf({}), correlationOf({})];
    expect(fresh[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(fresh[0]).not.toBe(fresh[1]);
  });

  it("uses the traceparent's trace id, refusing malformed and all-zero ones, else derives one every service derives alike", () => {
    expect(traceIdOf(`00-${TRACE}-00f067aa0ba902b7-01`)).toBe(TRACE);
    expect(traceIdOf(`00-${'0'.repeat(32)}-00f067aa0ba902b7-01`)).toBeUndefined();
    expect(traceIdOf('not a traceparent')).toBeUndefined();
    expect(logIdsOf({ traceparent: `00-${TRACE}-00f067aa0ba902b7-01` }, 'c')).toEqual({ traceId: TRACE, correlationId: 'c' });
    expect(logIdsOf({}, 'release-7').traceId).toBe(derivedTraceId('release-7'));
    expect(derivedTraceId('release-7')).toMatch(/^[0-9a-f]{32}$/);
    expect(derivedTraceId('release-8')).not.toBe(derivedTraceId('release-7'));
  });
});

describe('loggers bound to a request or an event', () => {
  it('writes the ids of a consumed message on every line, once each, from its headers or else its envelope', async () => {
    const { logger, lines } = captured('info');
    const relayed = { headers: { 'estate-id': 'e1', 'x-correlation-id': 'release-7' }, value: '{"correlationId":"ignored"}' };
    eventLogger(logger, relayed).child({ component: 'projector' }).info('applied');
    eventLogger(logger, { headers: {}, value: JSON.stringify({ id: 'e2', correlationId: 'older-relay' }) }).info('applied');
    await settle();
    expect(lines[0]).toMatchObject({ eventId: 'e1', correlationId: 'release-7', traceId: derivedTraceId('release-7'), component: 'projector' });
    expect(lines[1]).toMatchObject({ correlationId: 'older-relay', traceId: derivedTraceId('older-relay') });
    expect(correlationHeaders(relayed)).toEqual({ 'x-correlation-id': 'release-7' });
  });

  it('builds a lazy logger only when a line is written at an enabled level', async () => {
    const { logger, lines } = captured('info');
    let built = 0;
    const lazy = new LazyLogger(logger, () => {
      built += 1;
      return { traceId: TRACE, correlationId: 'call-1', sessionId: 's1' };
    });
    lazy.debug({ tool: 't' }, 'answered');
    expect(built).toBe(0);
    lazy.warn({ tool: 't' }, 'upstream call failed');
    lazy.info({ tool: 't' }, 'again');
    await settle();
    expect(built).toBe(1);
    expect(lines.map((l) => l.msg)).toEqual(['upstream call failed', 'again']);
    for (const line of lines) expect(line).toMatchObject({ traceId: TRACE, correlationId: 'call-1', sessionId: 's1' });
  });
});
