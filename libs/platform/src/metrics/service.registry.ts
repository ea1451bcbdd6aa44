import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { DeadLetterOffice } from '../consumer/dead-letter.office';

/**
 * A registry of one service's own: `npm start` runs four services in one process, and each
 * `/metrics` must show that service's series (plus the process's), never another's. prom-client's
 * global registry would mix them and refuse a second registration of the same name.
 */
export function serviceRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** `estate_dead_letters_total`: messages this process set aside, read from the office at scrape time. */
export function registerDeadLetterMetrics(registry: Registry, office: DeadLetterOffice): void {
  new Counter({
    name: 'estate_dead_letters_total',
    help: 'Messages this service dead-lettered since it started.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(office.count);
    },
  });
}

/** A gauge whose value is read when scraped; a reading that fails leaves the series out rather than stale. */
export function collectedGauge(registry: Registry, name: string, help: string, read: () => number | Promise<number>): Gauge {
  return new Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      this.reset();
      try {
        this.set(await read());
      } catch {
        // An unreadable figure is absent from this scrape; /readyz names the cause.
      }
    },
  });
}
