import type { DataSource } from 'typeorm';
import type { HealthCheck, HealthConfig } from '@estate/platform';
import type { OutboxRelay } from './outbox.relay';

export interface RelayBacklog {
  /** Stored events the relay has not published yet. */
  waiting: number;
  /** How long the oldest of them has waited, in seconds; 0 when none wait. */
  oldestSeconds: number;
  /** Events the bus refused for their size and the relay set aside (registry.relay_parked). */
  parked: number;
  leading: boolean;
  lastError: string | null;
}

/** What waits to be relayed: every stored event past the relay's checkpoint. */
export async function relayBacklog(db: DataSource, relay: OutboxRelay): Promise<RelayBacklog> {
  // Raw SQL: a row comparison on (xid8, bigint) against the checkpoint, which TypeORM cannot say.
  const [row] = await db.query<Array<{ waiting: number; oldest: number | null; parked: number }>>(
    `SELECT count(*)::int AS waiting, extract(epoch FROM clock_timestamp() - min(e.occurred_at))::float8 AS oldest,
            (SELECT count(*)::int FROM registry.relay_parked p WHERE p.relay = $1) AS parked
       FROM registry.events e, registry.relay_checkpoint c
      WHERE c.relay = $1 AND (e.tx_id, e.position) > (c.tx_id, c.position)`,
    [relay.name],
  );
  return {
    waiting: row?.waiting ?? 0,
    parked: row?.parked ?? 0,
    oldestSeconds: Math.max(0, Math.round((row?.oldest ?? 0) * 10) / 10),
    leading: relay.leading,
    lastError: relay.lastFailure ?? null,
  };
}

/**
 * `relay.backlog`: fails when more than `maxLag` events wait, or one has waited `stallMs`, saying the
 * relay's last error. Parked events do not fail it (they wait for nobody) but are named in its reason
 * and in the relay facts: readiness stays about whether events flow.
 */
export function relayBacklogCheck(db: DataSource, relay: OutboxRelay, config: HealthConfig): HealthCheck {
  return {
    name: 'relay.backlog',
    run: async () => {
      const backlog = await relayBacklog(db, relay);
      const stalled = backlog.waiting > 0 && backlog.oldestSeconds * 1000 >= config.stallMs;
      if (backlog.waiting <= config.maxLag && !stalled) return { ok: true };
      const why = `${backlog.parked > 0 ? `; ${backlog.parked} events parked` : ''}${backlog.lastError ? `; last relay error: ${backlog.lastError}` : ''}`;
      return { ok: false, reason: `${backlog.waiting} events wait to be relayed, the oldest for ${backlog.oldestSeconds} s${why}` };
    },
  };
}
