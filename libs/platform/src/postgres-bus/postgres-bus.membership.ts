import { Client } from 'pg';
import type { Logger } from 'pino';

/**
 * Kafka hands a partition to one member of a group at a time. Here a member holds a
 * session-level advisory lock on (group, topic) on its bus's own session; another member of the
 * group stands by and takes over once the first stops, or its process or connection dies (the
 * lock goes with the session). Consumers with a group of their own never wait.
 */
export class PostgresBusMembership {
  private session?: Promise<Client>;
  /** Which subscription of this bus holds each (group, topic). */
  private readonly held = new Map<string, object>();

  constructor(private readonly url: string, private readonly logger: Logger) {}

  /** True when `member` now holds the group's partition of the topic (false: another member does). */
  async claim(member: object, groupId: string, topic: string): Promise<boolean> {
    const key = keyOf(groupId, topic);
    const holder = this.held.get(key);
    // The lock is re-entrant within one session: a second subscription of this bus must stand by itself.
    if (holder !== undefined) return holder === member;
    const client = await this.open();
    // Raw SQL: session-level advisory locks, on this bus's own session (outside TypeORM's pool).
    const { rows } = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(hashtext('estate.bus.group'), hashtext($1)) AS ok`, [key]);
    if (rows[0].ok) this.held.set(key, member);
    return rows[0].ok;
  }

  /** Whether the claim still stands: a lost session loses every lock it held. */
  holds(member: object, groupId: string, topic: string): boolean {
    return this.held.get(keyOf(groupId, topic)) === member;
  }

  async release(member: object, groupId: string, topic: string): Promise<void> {
    const key = keyOf(groupId, topic);
    if (this.held.get(key) !== member) return;
    this.held.delete(key);
    const client = await this.session?.catch(() => undefined);
    await client?.query(`SELECT pg_advisory_unlock(hashtext('estate.bus.group'), hashtext($1))`, [key]).catch(() => undefined);
  }

  async close(): Promise<void> {
    const client = await this.session?.catch(() => undefined);
    this.session = undefined;
    this.held.clear();
    await client?.end().catch(() => undefined);
  }

  private open(): Promise<Client> {
    if (!this.session) {
      const client = new Client({ connectionString: this.url });
      const session = client.connect().then(() => client);
      const lost = (error?: unknown) => {
        if (this.session !== session) return;
        if (this.held.size > 0) this.logger.warn({ err: error, groups: [...this.held.keys()] }, 'bus membership session lost; its groups are claimed again');
        this.held.clear();
        this.session = undefined;
      };
      client.on('error', lost);
      client.on('end', () => lost());
      session.catch(() => lost());
      this.session = session;
    }
    return this.session;
  }
}

function keyOf(groupId: string, topic: string): string {
  return `${groupId}\n${topic}`;
}
