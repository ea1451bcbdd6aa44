import { Registry } from 'prom-client';
import { RebuildMetrics } from './discovery.metrics';

describe('rebuild metrics', () => {
  it('show a running rebuild with its progress, then how it ended and how long it took', async () => {
    let clock = 10_000;
    const registry = new Registry();
    const rebuilds = new RebuildMetrics(registry, () => clock);
    const value = async (name: string, labels: Record<string, string> = {}) =>
      (await registry.getSingleMetric(name)!.get()).values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value;
    expect(await value('estate_rebuild_running')).toBe(0);
    rebuilds.started();
    rebuilds.progress(500, 1200);
    expect(await value('estate_rebuild_running')).toBe(1);
    expect(await value('estate_rebuild_events_read')).toBe(500);
    expect(await value('estate_rebuild_events_expected')).toBe(1200);
    clock += 2500;
    rebuilds.finished('failed');
    expect(await value('estate_rebuild_running')).toBe(0);
    expect(await value('estate_rebuild_last_duration_seconds')).toBe(2.5);
    expect(await value('estate_rebuilds_total', { outcome: 'failed' })).toBe(1);
    expect(await value('estate_rebuilds_total', { outcome: 'ok' })).toBe(0);
  });
});
