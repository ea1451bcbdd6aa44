import { CURRENT_REGISTRY_EVENT_VERSIONS, type EventEnvelope } from '@estate/events';
import { createLogger } from '@estate/platform';
import { bankSpecs } from '../../../../examples/bank/bank.specs';
import { applyEnvelope, MemoryProjection } from '../catalog.apply';
import type { RegistryEventSource } from '../catalog.rebuilder';
import { LogTimeline } from './log-timeline';

const [template] = bankSpecs('bank');
const T0 = Date.parse('2026-11-30T10:00:00.000Z');

/** An append-only store in memory, read like GET /v1/events (store positions are 1-based row numbers). */
class ArrayStore implements RegistryEventSource {
  readonly events: EventEnvelope[] = [];
  reads = 0;
  private readonly streams = new Map<string, number>();

  append(type: keyof typeof CURRENT_REGISTRY_EVENT_VERSIONS, stream: string, data: unknown, at: number): void {
    const position = this.streams.get(stream) ?? 0;
    this.streams.set(stream, position + 1);
    const n = this.events.length;
    this.events.push({ id: `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`, type, version: CURRENT_REGISTRY_EVENT_VERSIONS[type], stream, position, occurredAt: new Date(at).toISOString(), actor: 't', correlationId: 'c', data } as EventEnvelope);
  }

  async count() { return this.events.length; }

  async read(after: string, limit: number) {
    this.reads += 1;
    const events = this.events.slice(Number(after), Number(after) + limit);
    return { events, next: String(Number(after) + events.length) };
  }
}

/** A log of `tools` tools published in turn, then each one deprecated, one event a second. */
function fill(store: ArrayStore, tools: number, from = 0): void {
  for (let t = 0; t < tools; t += 1) {
    const spec = { ...template, name: `bank.t${t}` };
    store.append('ToolVersionPublished', `tool:${spec.name}`, { spec, bump: 'initial', changes: [] }, T0 + 1000 * (from + t));
  }
  for (let t = 0; t < tools; t += 1) store.append('ToolVersionDeprecated', `tool:bank.t${t}`, { name: `bank.t${t}`, version: '1.0.0', reason: 'old' }, T0 + 1000 * (from + tools + t));
}

async function freshFold(events: EventEnvelope[]): Promise<string> {
  const projection = new MemoryProjection();
  for (const event of events) await applyEnvelope(projection, event);
  return summary(projection);
}
const summary = (p: MemoryProjection) => JSON.stringify([...p.tools.values()].map((e) => `${e.name}:${e.versions.map((v) => v.status).join(',')}`).sort());

describe('the log as a timeline', () => {
  const logger = createLogger('timeline-spec', 'silent');

  it('folds at any instant exactly what a fresh fold of the events up to it gives, with thinned checkpoints', async () => {
    const store = new ArrayStore();
    fill(store, 40);
    const timeline = new LogTimeline(store, logger, { indexPage: 3, maxCheckpoints: 4, recentFolds: 2 });
    for (const k of [0, 1, 2, 7, 39, 40, 41, 55, 79, 80]) {
      const folded = await timeline.foldedAt(T0 + 1000 * k - 1);
      expect({ k, events: folded.events, fold: summary(folded.projection) }).toEqual({ k, events: k, fold: await freshFold(store.events.slice(0, k)) });
    }
    // 80 events with at most 4 checkpoints: the spacing grew so memory did not.
    expect(timeline.size.events).toBe(80);
    expect(timeline.size.checkpoints).toBeLessThanOrEqual(5);
    expect(timeline.size.spacing).toBeGreaterThan(3);
  });

  it('answers before the first event with nothing, and reads what was appended since for a later instant', async () => {
    const store = new ArrayStore();
    fill(store, 2);
    const timeline = new LogTimeline(store, logger);
    expect(await timeline.foldedAt(T0 - 1)).toMatchObject({ events: 0, lastEventAt: undefined });
    expect((await timeline.foldedAt(T0 + 3600_000)).events).toBe(4);
    fill(store, 1, 10);
    const later = await timeline.foldedAt(T0 + 3600_000);
    expect([later.events, later.lastEventAt]).toEqual([6, new Date(T0 + 11_000).toISOString()]);
    // An instant inside what was indexed reads nothing new from the store's tail.
    const reads = store.reads;
    await timeline.foldedAt(T0 + 1000);
    await timeline.foldedAt(T0 + 1000);
    expect(store.reads - reads).toBeLessThanOrEqual(1);
  });

  it('never lets the log run back in time: an event stamped earlier than one before it counts from the later instant', async () => {
    const store = new ArrayStore();
    fill(store, 1);
    store.append('ToolVersionRetired', 'tool:bank.t0', { name: 'bank.t0', version: '1.0.0', reason: 'gone' }, T0 - 5000);
    const timeline = new LogTimeline(store, logger);
    await timeline.foldedAt(T0 + 3600_000);
    expect((await timeline.foldedAt(T0 + 500)).events).toBe(1);
    expect((await timeline.foldedAt(T0 + 1000)).events).toBe(3);
  });
});
