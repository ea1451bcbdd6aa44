import { Counter, Gauge, type Registry } from 'prom-client';
import { registerConsumerMetrics, registerDeadLetterMetrics, serviceRegistry, type ConsumerMonitor, type DeadLetterOffice } from '@estate/platform';
import type { RebuildWatch } from './catalog.rebuilder';

/** A rebuild's figures as gauges: running or not, events read of those expected, and how the last ones ended. */
export class RebuildMetrics implements RebuildWatch {
  private readonly running: Gauge;
  private readonly read: Gauge;
  private readonly expected: Gauge;
  private readonly lastDuration: Gauge;
  private readonly finishedCount: Counter<'outcome'>;
  private startedAt = 0;

  constructor(registry: Registry, private readonly now: () => number = Date.now) {
    const registers = [registry];
    this.running = new Gauge({ name: 'estate_rebuild_running', help: '1 while a catalog rebuild runs.', registers });
    this.read = new Gauge({ name: 'estate_rebuild_events_read', help: 'Events the current (or last) rebuild has folded so far.', registers });
    this.expected = new Gauge({ name: 'estate_rebuild_events_expected', help: 'Events the current (or last) rebuild expects to fold.', registers });
    this.lastDuration = new Gauge({ name: 'estate_rebuild_last_duration_seconds', help: 'How long the last finished rebuild took.', registers });
    this.finishedCount = new Counter({ name: 'estate_rebuilds_total', help: 'Finished catalog rebuilds, by outcome.', labelNames: ['outcome'], registers });
    this.running.set(0);
    for (const outcome of ['ok', 'failed']) this.finishedCount.inc({ outcome }, 0);
  }

  started(): void {
    this.startedAt = this.now();
    this.running.set(1);
    this.read.set(0);
  }

  progress(events: number, total: number): void {
    this.read.set(events);
    this.expected.set(total);
  }

  finished(outcome: 'ok' | 'failed'): void {
    this.running.set(0);
    this.lastDuration.set((this.now() - this.startedAt) / 1000);
    this.finishedCount.inc({ outcome });
  }
}

/** Discovery's registry: the projector's consumer figures, dead letters and rebuilds. */
export function discoveryRegistry(monitor: ConsumerMonitor, deadLetters: DeadLetterOffice): { registry: Registry; rebuilds: RebuildMetrics } {
  const registry = serviceRegistry('discovery');
  registerConsumerMetrics(registry, monitor);
  registerDeadLetterMetrics(registry, deadLetters);
  return { registry, rebuilds: new RebuildMetrics(registry) };
}
