import { Gauge, type Registry } from 'prom-client';
import type { ConsumerMonitor, ConsumerReport } from '../health/consumer.monitor';
import type { PartitionReport } from '../health/partition.progress';

type Labels = { consumer: string; topic: string; group: string };

const labelsOf = (report: ConsumerReport): Labels => ({ consumer: report.name, topic: report.topic, group: report.groupId });

/**
 * Consumer positions and lag per topic, group and partition, read from the consumer monitor when
 * scraped (the same figures `/readyz` judges by; its report is cached, so four gauges cost one
 * reading). Label values are the service's own topic and group names: bounded by configuration,
 * never by traffic.
 */
export function registerConsumerMetrics(registry: Registry, monitor: ConsumerMonitor): void {
  const reports = () => monitor.report().catch((): ConsumerReport[] => []);
  const perPartition = (name: string, help: string, value: (p: PartitionReport) => number | null) =>
    new Gauge({
      name,
      help,
      labelNames: ['consumer', 'topic', 'group', 'partition'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const report of await reports()) {
          for (const p of report.partitions) {
            const figure = value(p);
            if (figure !== null) this.set({ ...labelsOf(report), partition: String(p.partition) }, figure);
          }
        }
      },
    });
  perPartition('estate_consumer_lag_messages', "Messages between a consumer's position and the end of its log.", (p) => p.lag);
  perPartition('estate_consumer_position', 'The next offset a consumer will handle.', (p) => (p.position === null ? null : Number(p.position)));
  perPartition('estate_consumer_seconds_since_progress', 'Seconds since a consumer last moved on a partition.', (p) => p.secondsSinceProgress);
  new Gauge({
    name: 'estate_consumer_subscribed',
    help: '1 while a consumer is subscribed, 0 once it stopped.',
    labelNames: ['consumer', 'topic', 'group'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const report of await reports()) this.set(labelsOf(report), report.subscribed ? 1 : 0);
    },
  });
}
