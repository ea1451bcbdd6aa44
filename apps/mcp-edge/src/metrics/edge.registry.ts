import { collectedGauge, registerConsumerMetrics, registerDeadLetterMetrics, serviceRegistry, type ConsumerMonitor, type DeadLetterOffice } from '@estate/platform';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { CallRecorder } from '../calls/call.recorder';
import type { CatalogReplica } from '../catalog/catalog.replica';
import type { SessionManager } from '../sessions/session.manager';
import { EdgeCallMetrics } from './edge.metrics';

export interface EdgeMetricSources {
  replica: CatalogReplica;
  sessions: SessionManager;
  recorder: CallRecorder;
  deadLetters: DeadLetterOffice;
  monitor: ConsumerMonitor;
}

/** The edge's registry: calls and refusals, sessions, list_changed fan-out, catalog and consumer figures. */
export function edgeRegistry(sources: EdgeMetricSources): Registry {
  const registry = serviceRegistry('mcp-edge');
  const calls = new EdgeCallMetrics(registry, sources.replica);
  sources.recorder.onRecord((event) => calls.observe(event));
  collectedGauge(registry, 'estate_mcp_sessions', 'Open MCP sessions on this edge.', () => sources.sessions.size);
  collectedGauge(registry, 'estate_catalog_tools', "Tools in this edge's catalog replica.", () => sources.replica.size);
  const notified = new Counter({ name: 'estate_list_changed_notifications_total', help: 'notifications/tools/list_changed sent to sessions.', registers: [registry] });
  const fanOut = new Histogram({
    name: 'estate_list_changed_fanout_sessions', help: 'Sessions notified per catalog change.', buckets: [0, 1, 5, 10, 50, 100, 500, 1000], registers: [registry],
  });
  sources.sessions.onListChanged((sessions) => {
    notified.inc(sessions);
    fanOut.observe(sessions);
  });
  registerConsumerMetrics(registry, sources.monitor);
  registerDeadLetterMetrics(registry, sources.deadLetters);
  return registry;
}
