import { randomBytes, randomUUID } from 'node:crypto';
import type { Provider } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { DATABASE, LOGGER, METRICS_ACCESS, targetAddressPolicy, type Logger, type MetricsAccess } from '@estate/platform';
import type { AdvertisedAddress } from '../advertised.address';
import type { AuditConfig } from '../config';
import { ToolChangeFeed } from '../stream/tool-change.feed';
import { AuditRepository } from '../store/audit.repository';
import { WebhookDispatcher } from './webhook.dispatcher';
import { WebhookLeadership } from './webhook.leadership';
import { WebhookLifecycle } from './webhook.lifecycle';
import { registerWebhookMetrics } from './webhook.metrics';
import { WebhookRepository } from './webhook.repository';
import { WebhookSecretBox } from './webhook-secret.box';
import { WebhookSender } from './webhook.sender';
import { WebhookSubscriptions } from './webhook.subscriptions';

const WEBHOOK_METRICS = Symbol('WebhookMetrics');

/**
 * The webhook parts of audit. The clock, ids and randomness are bound here, the composition root,
 * so the rules below stay pure. Deliveries name the address audit advertises (advertised.address.ts).
 */
export function webhookProviders(config: AuditConfig & { databaseUrl: string }, registryTopic: string, advertised: AdvertisedAddress): Provider[] {
  // One policy for the subscribe-time check, the name resolution and every delivery's own connection.
  const policy = targetAddressPolicy(config.webhooks.allow);
  return [
    {
      provide: WebhookRepository,
      useFactory: (db: DataSource, logger: Logger) => {
        if (config.webhooks.secretKey === undefined) logger.warn('webhook signing secrets are stored in plain text; set ESTATE_WEBHOOK_SECRET_KEY to seal them');
        return new WebhookRepository(db, new WebhookSecretBox(config.webhooks.secretKey));
      },
      inject: [DATABASE, LOGGER],
    },
    {
      provide: WebhookDispatcher,
      useFactory: (repo: WebhookRepository, trail: AuditRepository, feed: ToolChangeFeed, logger: Logger) => {
        const log = logger.child({ component: 'webhooks' });
        const dispatcher = new WebhookDispatcher({
          repo, trail, sender: new WebhookSender(policy, config.webhooks.timeoutMs), registryTopic, retry: config.webhooks.retry,
          concurrency: config.webhooks.concurrency, cloudEvents: advertised.options, now: () => new Date(), newId: randomUUID, random: Math.random, logger: log,
        }, trail, new WebhookLeadership(config.databaseUrl, log), { pollMs: config.webhooks.pollMs, keepDeliveredMs: config.webhooks.keepDeliveredMs }, log);
        // The feed already LISTENs for appends; a second listening connection would only repeat it.
        feed.onAppended(() => dispatcher.appended());
        return dispatcher;
      },
      inject: [WebhookRepository, AuditRepository, ToolChangeFeed, LOGGER],
    },
    {
      provide: WebhookSubscriptions,
      useFactory: (repo: WebhookRepository, trail: AuditRepository, feed: ToolChangeFeed, dispatcher: WebhookDispatcher) => new WebhookSubscriptions({
        repo, trail, positions: feed, dispatcher, policy, now: () => new Date(), newId: randomUUID, newSecret: () => randomBytes(32).toString('base64url'),
      }),
      inject: [WebhookRepository, AuditRepository, ToolChangeFeed, WebhookDispatcher],
    },
    {
      provide: WEBHOOK_METRICS,
      useFactory: (access: MetricsAccess, dispatcher: WebhookDispatcher) => registerWebhookMetrics(access.registry, dispatcher),
      inject: [METRICS_ACCESS, WebhookDispatcher],
    },
    WebhookLifecycle,
  ];
}
