import { EnvReader, readAuth, readCommon, type AuthConfig, type CommonConfig, type Env } from '@estate/platform';
import { readWebhookConfig, type WebhookConfig } from './webhooks/webhook.config';

export interface AuditConfig extends CommonConfig {
  host: string;
  port: number;
  auth: AuthConfig;
  /**
   * Consumer group stem; positions are kept in the audit schema (at-least-once, dedupe by event id).
   * Each topic gets its own group `${groupId}.${topic key}` (see audit.consumer.ts for why).
   */
  groupId: string;
  webhooks: WebhookConfig;
  /** A deprecation names the principals that called the version in this many days before it. */
  deprecationCallersDays: number;
  /**
   * What seals the feed's cursors (stream/feed-cursor.seal.ts): ESTATE_WEBHOOK_SECRET_KEY, else the
   * HS256 ESTATE_JWT_SECRET, both shared by every copy; with neither, each process makes its own.
   */
  feedCursorSecret?: string;
  /** ESTATE_AUDIT_PUBLIC_URL was given: audit advertises it; otherwise the address it listens on (advertised.address.ts). */
  publicUrlSet: boolean;
}

/** Reads ESTATE_AUDIT_HOST, ESTATE_AUDIT_PORT, ESTATE_AUDIT_GROUP, ESTATE_DEPRECATION_CALLERS_DAYS and the shared settings. */
export function loadAuditConfig(env: Env): AuditConfig {
  const reader = new EnvReader(env);
  const config = {
    ...readCommon(reader),
    host: reader.string('ESTATE_AUDIT_HOST', '127.0.0.1'),
    port: reader.port('ESTATE_AUDIT_PORT', 8003),
    auth: readAuth(reader),
    groupId: reader.string('ESTATE_AUDIT_GROUP', 'estate-audit'),
    webhooks: readWebhookConfig(reader),
    deprecationCallersDays: reader.integer('ESTATE_DEPRECATION_CALLERS_DAYS', 30, 1),
    publicUrlSet: reader.optional('ESTATE_AUDIT_PUBLIC_URL') !== undefined,
  };
  const { auth, webhooks } = config;
  return reader.finish({ ...config, feedCursorSecret: webhooks.secretKey ?? (auth.mode === 'jwt' ? auth.secret : undefined) });
}
