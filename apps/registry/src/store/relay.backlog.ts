import type { DataSource } from 'typeorm';
import type { HealthCheck, HealthConfig } from '@estate/platform';
import type { OutboxRelay } from './outbox.relay';

export interface RelayBacklog {
  /** Stored events the relay has not published yet. */
  waiting: number;
  /** How long the oldest of them has waited, in seconds; 0 when none wait. */
  oldestSeconds: number;
  leading: boolean;
  lastError: string | null;
}

/** What waits to be relayed: every stored event past the relay's checkpoint. */
export async function relayBacklog(db: DataSource, relay: OutboxRelay): Promise<RelayBacklog> {
  const [row] = await db.query<Array<{ waiting: number; oldest: number | null }>>(
    `SELECT count(*)::int AS waiting, extract(epoch FROM clock_timestamp() - min(e.occurred_at))::float8 AS oldest
       FROM registry.events e, registry.relay_checkpoint c
      WHERE c.relay = $1 AND (e.tx_id, e.position) > (c.tx_id, c.position)`,
    [relay.name],
  );
  return {
    waiting: row?.waiting ?? 0,
    oldestSeconds: Math.max(0, Math.round((row?.oldest ?? 0) * 10) / 10),
    leading: relay.leading,
    lastError: relay.lastFailure ?? null,
  };
}

/** `relay.backlog`: fails when more than `maxLag` events wait, or one has waited `stallMs`, saying the relay's last error. */
export function relayBacklogCheck(db: DataSource, relay: OutboxRelay, config: HealthConfig): HealthCheck {
  return {
    name: 'relay.backlog',
    run: async () => {
      const backlog = await relayBacklog(db, relay);
      const stalled = backlog.waiting > 0 && backlog.oldestSeconds * 1000 >= config.stallMs;
      if (backlog.waiting <= config.maxLag && !stalled) return { ok: true };
      const why = backlog.lastError ? `; last relay error: ${backlog.lastError}` : '';
      return { ok: false, reason: `${backlog.waiting} events wait to be relayed, the oldest for ${backlog.oldestSeconds} s${why}` };
    },
  };
}
