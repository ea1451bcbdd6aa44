import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Webhook subscriptions and their delivery queue, kept beside the trail they read from. */
export class WebhookSubscriptions1764520000000 implements MigrationInterface {
  name = 'WebhookSubscriptions1764520000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE audit.webhook_subscriptions (
        id uuid PRIMARY KEY, url text NOT NULL, filter text NOT NULL, secret text NOT NULL,
        created_by text NOT NULL, created_at timestamptz NOT NULL, cursor_seq bigint NOT NULL
      )`);
    // No foreign key: a subscription's deliveries are deleted with it in one transaction.
    await runner.query(`
      CREATE TABLE audit.webhook_deliveries (
        id bigserial PRIMARY KEY, subscription_id uuid NOT NULL, seq bigint NOT NULL, event_id text NOT NULL,
        tool text NOT NULL, state text NOT NULL, attempts integer NOT NULL, next_attempt_at timestamptz NOT NULL,
        last_error text, updated_at timestamptz NOT NULL,
        CONSTRAINT webhook_deliveries_subscription_seq UNIQUE (subscription_id, seq)
      )`);
    await runner.query(`CREATE INDEX webhook_deliveries_queue ON audit.webhook_deliveries (subscription_id, state, tool, seq)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE audit.webhook_deliveries, audit.webhook_subscriptions`);
  }
}
