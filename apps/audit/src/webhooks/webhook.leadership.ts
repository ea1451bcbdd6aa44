import { Client } from 'pg';
import type { Logger } from '@estate/platform';

/** The advisory lock key ("estate webhooks"), database-local like every advisory lock. */
const LOCK_KEY = '4517617733104611';

/**
 * Only one audit instance delivers: two would send a tool's events side by side and break the
 * order per tool. A session-level advisory lock on a connection of its own decides; when that
 * connection ends (a crash, a database restart) PostgreSQL frees the lock and another instance
 * takes over from the state in the tables.
 */
export class WebhookLeadership {
  private client?: Client;
  private held = false;

  constructor(private readonly databaseUrl: string, private readonly logger: Logger) {}

  get leading(): boolean {
    return this.held;
  }

  /** Takes the lock if free; true while this instance holds it. */
  async claim(): Promise<boolean> {
    if (this.held) return true;
    try {
      const client = this.client ?? (await this.connect());
      const { rows } = await client.query<{ held: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS held', [LOCK_KEY]);
      this.held = rows[0].held;
      if (this.held) this.logger.info('this audit instance delivers webhooks');
    } catch (error) {
      this.logger.warn({ err: error }, 'could not ask for the webhook lock; asking again on the next tick');
      await this.release();
    }
    return this.held;
  }

  async release(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.held = false;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<Client> {
    const client = new Client({ connectionString: this.databaseUrl });
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      if (this.held) this.logger.warn('the webhook lock connection ended; deliveries pause until the lock is held again');
      this.held = false;
    };
    client.on('error', lost);
    client.on('end', lost);
    await client.connect();
    this.client = client;
    return client;
  }
}
