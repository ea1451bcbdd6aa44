import type { EventEnvelope } from '@estate/events';
import { bankSpecs } from '../../../examples/bank/bank.specs';
import { applyEnvelope, MemoryProjection, rowsNamedBy } from './catalog.apply';

const [lookup] = bankSpecs('pay');
let next = 0;
const envelope = (stream: string, position: number, type: string, data: unknown, version = 1): EventEnvelope => ({
  id: `e${(next += 1)}`, type, version, stream, position, occurredAt: '2026-01-01T00:00:00.000Z', actor: 'test', correlationId: 'c', data,
});
const published = (position: number, version: string) =>
  envelope('tool:pay.lookup', position, 'ToolVersionPublished', { spec: { ...lookup, version }, bump: 'initial', changes: [] });
const deprecated = (position: number, version: string) =>
  envelope('tool:pay.lookup', position, 'ToolVersionDeprecated', { name: 'pay.lookup', version, reason: 'old' });

describe('applying registry events to the catalog projection', () => {
  it('applies each stream position once: a redelivered publish leaves a later deprecation in place', async () => {
    const target = new MemoryProjection();
    expect(await applyEnvelope(target, published(0, '1.0.0'))).toEqual({ touched: ['pay.lookup'] });
    expect(await applyEnvelope(target, deprecated(1, '1.0.0'))).toEqual({ touched: ['pay.lookup'] });
    expect(await applyEnvelope(target, published(0, '1.0.0'))).toEqual({ touched: [] });
    expect(target.tools.get('pay.lookup')).toMatchObject({ position: 1, versions: [{ version: '1.0.0', status: 'deprecated' }] });
  });

  it('lifts a version-1 ServerRegistered to the current shape and re-points its tools', async () => {
    const target = new MemoryProjection();
    await applyEnvelope(target, published(0, '1.0.0'));
    const outcome = await applyEnvelope(target, envelope('server:pay', 0, 'ServerRegistered', { name: 'pay', url: 'http://127.0.0.1:9/mcp', owner: 'ops' }));
    expect(outcome).toEqual({ touched: ['pay.lookup'] });
    expect(target.servers.get('pay')).toMatchObject({ namespace: 'pay', transport: 'streamable-http' });
    expect(target.tools.get('pay.lookup')?.upstream).toMatchObject({ url: 'http://127.0.0.1:9/mcp' });
  });

  it.each([
    ['a value that is not an envelope', 'garbage', /^not an event envelope/],
    ['an envelope missing fields', { stream: 'tool:x', position: 0 }, /^not an event envelope: .*\$\.id is required/],
    ['an unknown event type', envelope('tool:pay.lookup', 0, 'ToolVersionExploded', {}), /ToolVersionExploded@1/],
    ['a known type at an unknown version', envelope('tool:pay.lookup', 0, 'ToolVersionRetired', { name: 'pay.lookup', version: '1.0.0', reason: 'x' }, 9), /ToolVersionRetired@9/],
    ['a payload off its schema', envelope('tool:pay.lookup', 0, 'ToolVersionRetired', { name: 'pay.lookup' }), /payload off its schema: \$\.reason is required/],
    ['a change to a tool never published', deprecated(0, '1.0.0'), /never seen published/],
  ])('skips %s with a reason instead of throwing, and changes nothing', async (_what, raw, reason) => {
    const target = new MemoryProjection();
    const outcome = await applyEnvelope(target, raw);
    expect(outcome.touched).toEqual([]);
    expect(outcome.skipped).toMatch(reason);
    expect([target.tools.size, target.servers.size, target.streams.size]).toEqual([0, 0, 0]);
  });

  it('skips a lifecycle change to a version the tool never had, keeping the stream open for the next event', async () => {
    const target = new MemoryProjection();
    await applyEnvelope(target, published(0, '1.0.0'));
    expect((await applyEnvelope(target, deprecated(1, '7.0.0'))).skipped).toMatch(/pay\.lookup@7\.0\.0/);
    expect(await applyEnvelope(target, deprecated(1, '1.0.0'))).toEqual({ touched: ['pay.lookup'] });
  });
});

describe('rowsNamedBy (what a batch reads up front)', () => {
  it('names the stream and the tool an event would touch, and nothing a malformed message does not name', () => {
    expect(rowsNamedBy({ stream: 'tool:a', type: 'ToolVersionPublished', data: { spec: { name: 'a' } } })).toEqual({ stream: 'tool:a', tool: 'a' });
    expect(rowsNamedBy({ stream: 'tool:a', type: 'ToolVersionPublished', data: { spec: { name: 'a', upstream: { server: 'bank' } } } }))
      .toEqual({ stream: 'tool:a', tool: 'a', server: 'bank' });
    expect(rowsNamedBy({ stream: 'tool:a', type: 'ToolVersionPublished', data: { spec: { name: 'a', upstream: { server: 3 } } } })).toEqual({ stream: 'tool:a', tool: 'a' });
    expect(rowsNamedBy({ stream: 'tool:a', type: 'ToolVersionDeprecated', data: { name: 'a', version: '1.0.0' } })).toEqual({ stream: 'tool:a', tool: 'a' });
    expect(rowsNamedBy({ stream: 'server:s', type: 'ServerRegistered', data: { name: 's' } })).toEqual({ stream: 'server:s' });
    expect(rowsNamedBy({ stream: 'tool:a', type: 'ToolVersionPublished', data: {} })).toEqual({ stream: 'tool:a' });
    expect(rowsNamedBy({ stream: 7, type: 'SomethingElse', data: { name: 'a' } })).toEqual({});
    expect(rowsNamedBy('not an object')).toEqual({});
  });
});
