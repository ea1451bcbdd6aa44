import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createLogger } from '@estate/platform';
import { CallSpool, type SpooledLine, type SpoolOptions } from './call.spool';

describe('call spool (a real directory)', () => {
  const logger = createLogger('spool-spec', 'silent');
  const options = (extra: Partial<SpoolOptions> = {}): SpoolOptions => ({ dir: mkdtempSync(path.join(tmpdir(), 'spool-spec-')), maxBytes: 1024 * 1024, syncMs: 5, ...extra });

  it('gives an edge that starts later every line not acknowledged, in order, and nothing acknowledged', () => {
    const opts = options();
    const first = new CallSpool(opts, 'estate.calls', logger);
    expect(first.open()).toEqual([]);
    const lines: SpooledLine[] = [];
    for (let i = 0; i < 10; i += 1) lines.push(first.append(`{"n":${i}}`));
    first.acknowledge(lines[3], lines.slice(0, 4).reduce((s, l) => s + l.bytes, 0));
    first.close();

    const second = new CallSpool(opts, 'estate.calls', logger);
    const adopted = second.open();
    expect(adopted.map((a) => a.text)).toEqual([4, 5, 6, 7, 8, 9].map((n) => `{"n":${n}}`));
    expect(second.unsentBytes).toBe(adopted.reduce((s, a) => s + a.line.bytes, 0));
    // The adopted lines now live in the second edge's slot: the first slot is gone.
    expect(readdirSync(path.join(opts.dir, 'estate.calls'))).toHaveLength(1);
    second.acknowledge(adopted[adopted.length - 1].line, second.unsentBytes);
    second.close();
    expect(existsSync(path.join(opts.dir, 'estate.calls'))).toBe(false);
    expect(new CallSpool(opts, 'estate.calls', logger).open()).toEqual([]);
  });

  it('leaves a slot alone while an edge of this process holds it, and keeps topics apart', () => {
    const opts = options();
    const running = new CallSpool(opts, 'a.estate.calls', logger);
    running.open();
    running.append('{"held":true}');
    expect(new CallSpool(opts, 'a.estate.calls', logger).open()).toEqual([]);
    running.close();
    expect(new CallSpool(opts, 'b.estate.calls', logger).open()).toEqual([]);
    expect(new CallSpool(opts, 'a.estate.calls', logger).open().map((a) => a.text)).toEqual(['{"held":true}']);
  });

  it('reads across segments, deletes drained ones, and skips a last line cut short', () => {
    const opts = options({ segmentBytes: 64 });
    const spool = new CallSpool(opts, 'estate.calls', logger);
    spool.open();
    const lines = Array.from({ length: 12 }, (_, i) => spool.append(`{"record":${i},"pad":"${'x'.repeat(10)}"}`));
    expect(new Set(lines.map((l) => l.segment)).size).toBeGreaterThan(3);
    spool.acknowledge(lines[7], lines.slice(0, 8).reduce((s, l) => s + l.bytes, 0));
    const slot = path.join(opts.dir, 'estate.calls', readdirSync(path.join(opts.dir, 'estate.calls'))[0]);
    const segments = readdirSync(slot).filter((f) => f.endsWith('.spool'));
    expect(segments[0]).toBe(`${String(lines[7].segment).padStart(10, '0')}.spool`);
    spool.close();
    // A write the machine lost half of: no newline at the end of the last segment.
    appendFileSync(path.join(slot, segments[segments.length - 1]), '{"record":"half');
    expect(new CallSpool(opts, 'estate.calls', logger).open().map((a) => (JSON.parse(a.text) as { record: number }).record)).toEqual([8, 9, 10, 11]);
  });

  it('is full at maxBytes of unsent lines and has room again once they are acknowledged', () => {
    const spool = new CallSpool(options({ maxBytes: 100 }), 'estate.calls', logger);
    spool.open();
    const a = spool.append('x'.repeat(60));
    expect(spool.full).toBe(false);
    const b = spool.append('y'.repeat(60));
    expect(spool.full).toBe(true);
    spool.acknowledge(b, a.bytes + b.bytes);
    expect(spool.full).toBe(false);
    spool.close();
  });

  it('writes a moved position within a moment (not per acknowledged batch), and at once on close', async () => {
    const opts = options();
    const spool = new CallSpool(opts, 'estate.calls', logger);
    spool.open();
    const slot = path.join(opts.dir, 'estate.calls', readdirSync(path.join(opts.dir, 'estate.calls'))[0]);
    const drained = () => (existsSync(path.join(slot, 'drained')) ? JSON.parse(readFileSync(path.join(slot, 'drained'), 'utf8')) as { offset: number } : undefined);
    const a = spool.append('{"n":1}');
    const b = spool.append('{"n":2}');
    spool.acknowledge(a, a.bytes);
    spool.acknowledge(b, b.bytes);
    expect(drained()).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(drained()).toEqual({ segment: 0, offset: b.end });
    const c = spool.append('{"n":3}');
    spool.acknowledge(c, c.bytes);
    spool.close();
    // Everything was acknowledged: the slot went with the close.
    expect(existsSync(slot)).toBe(false);
  });
});
