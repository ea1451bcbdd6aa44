import type { CatalogEntry } from '@estate/events';
import { Registry } from 'prom-client';
import { boundedToolLabels, EdgeCallMetrics, UNKNOWN_LABEL } from './edge.metrics';

const entry = { name: 'weather.lookup', versions: [{ version: '1.0.0' }, { version: '1.1.0' }] } as unknown as CatalogEntry;
const catalog = { get: (name: string) => (name === entry.name ? entry : undefined) };
const who = { principal: 'agent-7', sessionId: 'session-1' };

describe('edge call metrics', () => {
  it('names only published tools and versions; anything else is unknown', () => {
    expect(boundedToolLabels(catalog, 'weather.lookup', '1.1.0')).toEqual({ tool: 'weather.lookup', version: '1.1.0' });
    expect(boundedToolLabels(catalog, 'weather.lookup', '9.9.9')).toEqual({ tool: 'weather.lookup', version: UNKNOWN_LABEL });
    expect(boundedToolLabels(catalog, 'x'.repeat(3000), '1.0.0')).toEqual({ tool: UNKNOWN_LABEL, version: UNKNOWN_LABEL });
    expect(boundedToolLabels(catalog, 'constructor', undefined)).toEqual({ tool: UNKNOWN_LABEL, version: UNKNOWN_LABEL });
  });

  it('counts calls by outcome with their latency, refusals by reason, and never a principal or session', async () => {
    const registry = new Registry();
    const metrics = new EdgeCallMetrics(registry, catalog);
    metrics.observe({ type: 'ToolCallCompleted', version: 1, data: { ...who, tool: 'weather.lookup', version: '1.0.0', outcome: 'ok', durationMs: 40, attempts: 1, repaired: 0 } });
    for (let i = 0; i < 50; i += 1) {
      metrics.observe({ type: 'ToolCallRefused', version: 1, data: { ...who, tool: `probe-${i}-${'z'.repeat(100)}`, reason: 'unknown_tool', detail: 'no such tool' } });
    }
    metrics.observe({ type: 'UpstreamRequestRefused', version: 1, data: { ...who, server: 's', method: 'sampling/createMessage', reason: 'not_allowed', detail: 'd' } });
    const text = await registry.metrics();
    expect(text).toContain('estate_tool_calls_total{tool="weather.lookup",version="1.0.0",outcome="ok"} 1');
    expect(text).toContain('estate_tool_calls_total{tool="unknown",version="unknown",outcome="refused"} 50');
    expect(text).toContain('estate_tool_call_refusals_total{reason="unknown_tool"} 50');
    expect(text).toContain('estate_tool_call_duration_seconds_bucket{le="0.05",tool="weather.lookup",version="1.0.0",outcome="ok"} 1');
    expect(text).toContain('estate_upstream_requests_total{method="sampling/createMessage",outcome="refused_not_allowed"} 1');
    expect(text).not.toMatch(/agent-7|session-1|probe-/);
  });
});
