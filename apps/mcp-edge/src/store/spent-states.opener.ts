import type { Logger } from '@estate/platform';
import type { EdgeConfig } from '../config';
import { MemorySpentStates, type SpentStates } from '../mcp/spent-states.port';
import { PostgresSpentStates } from './postgres-spent-states';

/** Expired rows go at least this often (sooner when confirmations live shorter). */
const MAX_SWEEP_EVERY_MS = 60_000;

/**
 * The spent-state store the edge's configuration asks for: shared in PostgreSQL when
 * ESTATE_EDGE_DATABASE_URL is set, otherwise this process's memory (said once at start, because
 * copies behind one address then each accept a replay of a confirmation another copy ran).
 */
export async function openSpentStates(config: Pick<EdgeConfig, 'edgeDatabaseUrl' | 'policy'>, logger: Logger): Promise<SpentStates> {
  if (config.edgeDatabaseUrl === undefined) {
    logger.info('ESTATE_EDGE_DATABASE_URL is not set: a 2026-07-28 confirmation is single-use on this copy only; copies behind one address need a shared database to refuse a replay');
    return new MemorySpentStates();
  }
  const sweepEveryMs = Math.min(config.policy.confirmationTtlMs, MAX_SWEEP_EVERY_MS);
  return PostgresSpentStates.open(config.edgeDatabaseUrl, { sweepEveryMs, logger: logger.child({ component: 'spent-states' }) });
}
