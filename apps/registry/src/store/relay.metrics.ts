import type { DataSource } from 'typeorm';
import { Gauge, type Registry } from 'prom-client';
import { serviceRegistry } from '@estate/platform';
import type { OutboxRelay } from './outbox.relay';
import { relayBacklog, type RelayBacklog } from './relay.backlog';

/**
 * The registry's metrics: the outbox depth and the relay's lag, read from the same query the
 * `relay.backlog` readiness check runs, at scrape time. A scrape that cannot reach the database
 * leaves the series out rather than repeat stale figures.
 */
export function registryMetrics(db: DataSource, relay: OutboxRelay): Registry {
  const registry = serviceRegistry('registry');
  let reading: { at: number; backlog: Promise<RelayBacklog | undefined> } | undefined;
  // The three gauges are collected together; one query serves them all.
  const backlog = () => {
    if (!reading || Date.now() - reading.at > 1000) reading = { at: Date.now(), backlog: relayBacklog(db, relay).catch(() => undefined) };
    return reading.backlog;
  };
  const gauge = (name: string, help: string, value: (b: RelayBacklog) => number) =>
    new Gauge({
      name, help, registers: [registry],
      async collect() {
        this.reset();
        const b = await backlog();
        if (b) this.set(value(b));
      },
    });
  gauge('estate_relay_backlog_events', 'Stored events the outbox relay has not published yet (the outbox depth).', (b) => b.waiting);
  gauge('estate_relay_lag_seconds', 'How long the oldest unpublished event has waited; 0 when none wait.', (b) => b.oldestSeconds);
  gauge('estate_relay_leading', '1 when this instance holds the relay lock and publishes, 0 when it stands by.', (b) => (b.leading ? 1 : 0));
  return registry;
}
