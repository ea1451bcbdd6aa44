import { parseAllowEntry, type AllowEntry, type EnvReader } from '@estate/platform';
import type { RetryPolicy } from './webhook.backoff';

export interface WebhookConfig {
  /** ESTATE_WEBHOOK_ALLOW: CIDRs, addresses or host names targets may reach despite the private-range refusal. */
  allow: AllowEntry[];
  retry: RetryPolicy;
  timeoutMs: number;
  concurrency: number;
  pollMs: number;
  /** How long a delivered row is kept (for the subscription's counts) before the leader deletes it. */
  keepDeliveredMs: number;
  /** ESTATE_WEBHOOK_SECRET_KEY: seals signing secrets at rest; unset, they are stored in plain text. */
  secretKey?: string;
}

/** Reads the ESTATE_WEBHOOK_* settings (see README's configuration table). */
export function readWebhookConfig(reader: EnvReader): WebhookConfig {
  const allow: AllowEntry[] = [];
  for (const entry of reader.list('ESTATE_WEBHOOK_ALLOW')) {
    const parsed = parseAllowEntry(entry);
    if ('error' in parsed) reader.problems.push(`ESTATE_WEBHOOK_ALLOW: ${parsed.error}`);
    else allow.push(parsed);
  }
  const secretKey = reader.optional('ESTATE_WEBHOOK_SECRET_KEY');
  if (secretKey !== undefined && secretKey.length < 32) reader.problems.push('ESTATE_WEBHOOK_SECRET_KEY must be at least 32 characters (a random secret shared by every audit copy)');
  return {
    allow,
    retry: {
      maxAttempts: reader.integer('ESTATE_WEBHOOK_MAX_ATTEMPTS', 8, 1),
      baseMs: reader.duration('ESTATE_WEBHOOK_BACKOFF_MS', 1000, { unit: 'ms', wholeFrom: 1 }),
      capMs: reader.duration('ESTATE_WEBHOOK_BACKOFF_MAX_MS', 600_000, { unit: 'ms', wholeFrom: 1 }),
    },
    timeoutMs: reader.duration('ESTATE_WEBHOOK_TIMEOUT_MS', 10_000, { unit: 'ms', wholeFrom: 100 }),
    concurrency: reader.integer('ESTATE_WEBHOOK_CONCURRENCY', 4, 1),
    pollMs: reader.duration('ESTATE_WEBHOOK_POLL_MS', 1000, { unit: 'ms', wholeFrom: 10 }),
    keepDeliveredMs: reader.integer('ESTATE_WEBHOOK_KEEP_DELIVERED_HOURS', 168, 1) * 3_600_000,
    secretKey,
  };
}
