import type { EventEnvelope } from '@estate/events';
import { registryLog } from '../../../bench/support/registry-log.fixture';
import { applyEnvelope, MemoryProjection } from './catalog.apply';
import { applyToMemory } from './catalog.fold';

let n = 0;
const envelope = (stream: string, position: number, type: string, data: unknown, version = 1): EventEnvelope => ({
  id: `odd-${(n += 1)}`, type, version, stream, position, occurredAt: '2026-01-01T00:00:00.000Z', actor: 'test', correlationId: 'c', data,
});

/** A generated log with every kind of message a fold must pass over or apply differently mixed in. */
function mixedLog(): unknown[] {
  const log: unknown[] = [...registryLog(6000)];
  const odd: Array<[number, unknown]> = [
    [10, 'not json at all'],
    [20, { stream: 'tool:bench.t1', position: 0 }],
    [30, envelope('tool:bench.t2', 1, 'ToolVersionExploded', {})],
    [40, envelope('tool:bench.t3', 1, 'ToolVersionRetired', { name: 'bench.t3', version: '1.0.0', reason: 'x' }, 9)],
    [50, envelope('tool:bench.t4', 1, 'ToolVersionRetired', { name: 'bench.t4' })],
    // A redelivery of an applied publish, after later events of the stream.
    [2500, log[5]],
    // A lifecycle change to a version the tool never had.
    [3000, envelope('tool:bench.t5', 5, 'ToolVersionDeprecated', { name: 'bench.t5', version: '9.9.9', reason: 'x' })],
    // A version-1 registration of the server again: lifted to the current shape, its tools re-pointed.
    [4000, envelope('server:bench', 1, 'ServerRegistered', { name: 'bench', url: 'http://127.0.0.1:7/mcp', owner: 'ops' })],
    [4100, envelope('tool:bench.t6', 0, 'ToolVersionRetired', { name: 'bench.t6', version: '1.0.0', reason: 'gone' })],
    [4200, { ...(log[4150] as EventEnvelope), occurredAt: '2026-02-30T00:00:00.000Z' }],
  ];
  for (const [at, value] of odd.reverse()) log.splice(at, 0, value);
  return log;
}

describe('the rebuild fold', () => {
  it('ends with the projection, and passes over the same messages for the same reasons, as the live apply step', async () => {
    const live = new MemoryProjection();
    const folded = new MemoryProjection();
    const liveSkips: Array<string | undefined> = [];
    const foldSkips: Array<string | undefined> = [];
    for (const value of mixedLog()) {
      liveSkips.push((await applyEnvelope(live, value)).skipped);
      foldSkips.push(applyToMemory(folded, value));
    }
    expect(foldSkips).toEqual(liveSkips);
    expect(foldSkips.filter((s) => s !== undefined)).toHaveLength(7);
    expect([...folded.tools]).toEqual([...live.tools]);
    expect([...folded.servers]).toEqual([...live.servers]);
    expect([...folded.streams]).toEqual([...live.streams]);
    expect(folded.tools.get('bench.t9')?.upstream.url).toBe('http://127.0.0.1:7/mcp');
  });
});
