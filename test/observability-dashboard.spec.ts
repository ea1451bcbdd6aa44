import { readFileSync } from 'node:fs';
import path from 'node:path';
import { dashboardExpressions, metricNames, type DashboardPanel } from './support/promql.names';
import { REPO_ROOT } from './support/infra';

const dashboard = JSON.parse(readFileSync(path.join(REPO_ROOT, 'infra/observability/grafana/dashboards/estate.json'), 'utf8')) as {
  uid: string; title: string; schemaVersion: number; panels: DashboardPanel[];
};

describe('the Grafana dashboard (infra/observability)', () => {
  it('is a dashboard Grafana provisions: a uid, unique panel ids, every query panel with expressions that name metrics', () => {
    expect(dashboard).toMatchObject({ uid: 'estate-overview', title: 'Estate', schemaVersion: expect.any(Number) });
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of dashboard.panels.filter((p) => p.type !== 'row')) {
      expect({ panel: panel.title, targets: (panel.targets ?? []).length > 0 }).toEqual({ panel: panel.title, targets: true });
    }
    for (const { panel, expr } of dashboardExpressions(dashboard)) expect({ panel, names: metricNames(expr).length > 0 }).toEqual({ panel, names: true });
  });

  it('reads metric names out of PromQL, leaving functions, labels, ranges and grouping aside', () => {
    expect(metricNames('histogram_quantile(0.95, sum by (le, tool) (rate(estate_tool_call_duration_seconds_bucket{outcome="ok"}[$__rate_interval])))'))
      .toEqual(['estate_tool_call_duration_seconds_bucket']);
    expect(metricNames('estate_rebuild_events_read / estate_rebuild_events_expected')).toEqual(['estate_rebuild_events_read', 'estate_rebuild_events_expected']);
    expect(metricNames('sum(rate(a_total{x=~"b|c"}[5m])) / on (instance) group_left sum(rate(d_total[1h] offset 1d))')).toEqual(['a_total', 'd_total']);
  });
});
