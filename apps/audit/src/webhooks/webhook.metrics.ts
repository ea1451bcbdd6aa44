import { Counter, type Registry } from 'prom-client';
import type { WebhookDispatcher } from './webhook.dispatcher';

/** `estate_webhook_deliveries_total{outcome}`: delivered, failed (to be retried) and dead (given up on) attempts. */
export function registerWebhookMetrics(registry: Registry, dispatcher: WebhookDispatcher): void {
  new Counter({
    name: 'estate_webhook_deliveries_total',
    help: 'Webhook delivery attempts since the process started, by outcome.',
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [outcome, count] of dispatcher.counts) this.inc({ outcome }, count);
    },
  });
}
