import { randomUUID } from 'node:crypto';
import type { EventEnvelope, ToolVersionDriftDetectedData } from '@estate/events';
import { BusClientProxy, injectTraceHeaders, type EventBus, type Logger, type OutgoingMessage } from '@estate/platform';
import type { DriftReporter } from './drift.watcher';

/** The actor of the drift reports, and so of the quarantines the registry records on them. */
export const EDGE_SERVICE_PRINCIPAL = 'estate-edge';
const RETRY_MS = [250, 1000, 5000];
const CLOSE_WAIT_MS = 3000;

/**
 * Publishes ToolVersionDriftDetected to `estate.drift`, keyed by tool name; the registry consumes
 * it and quarantines the version for every edge. The edge hid the version already, and does not
 * judge it again (a quarantined version is not checked), so a report the bus did not take is
 * kept and sent again until it does.
 */
export class DriftPublisher implements DriftReporter {
  private pending: OutgoingMessage[] = [];
  private timer?: NodeJS.Timeout;
  private sending?: Promise<void>;
  private failures = 0;
  private readonly client: BusClientProxy;

  constructor(bus: EventBus, private readonly topic: string, private readonly logger: Logger, private readonly clock: () => Date = () => new Date()) {
    this.client = new BusClientProxy(bus);
  }

  report(data: ToolVersionDriftDetectedData): void {
    const envelope: EventEnvelope = {
      id: randomUUID(), type: 'ToolVersionDriftDetected', version: 1, stream: `tool:${data.name}`, position: 0,
      occurredAt: this.clock().toISOString(), actor: EDGE_SERVICE_PRINCIPAL, correlationId: randomUUID(), data,
    };
    this.pending.push({ key: data.name, value: JSON.stringify(envelope), headers: injectTraceHeaders({ 'estate-type': envelope.type }) });
    this.timer ??= setTimeout(() => void this.flush(), 0);
  }

  async flush(): Promise<void> {
    this.timer = undefined;
    await this.sending;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    this.sending = this.client.emitBatch(this.topic, batch).then(() => {
      this.failures = 0;
    }, (error: unknown) => {
      const delay = RETRY_MS[Math.min(this.failures, RETRY_MS.length - 1)];
      this.failures += 1;
      this.logger.warn({ err: error, reports: batch.length, retryMs: delay }, 'could not publish drift reports; will retry');
      this.pending = batch.concat(this.pending);
      this.timer ??= setTimeout(() => void this.flush(), delay);
    });
    await this.sending;
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([this.flush(), new Promise((resolve) => (timeout = setTimeout(resolve, CLOSE_WAIT_MS)))]);
    clearTimeout(timeout);
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length > 0) this.logger.error({ reports: this.pending.length }, 'drift reports not published before shutdown; the next edge to connect to the upstream reports them again');
  }
}
