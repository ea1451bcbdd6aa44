import type { HealthConfig } from '../env.reader';
import type { ConsumerMonitor } from './consumer.monitor';
import { databaseCheck, type HealthCheck, type Queryable } from './health.check';
import type { ServiceHealth } from './health.controller';

export interface ServiceHealthParts {
  /** The service's own pool: `database` checks it. */
  db?: Queryable;
  /** The consumers the service cannot be ready without, as named to the monitor. */
  monitor?: ConsumerMonitor;
  consumers?: readonly string[];
  /** Checks of the service's own (the registry's relay backlog). */
  checks?: readonly HealthCheck[];
  /** Figures for administrators beside the consumers' positions (session and tool counts). */
  facts?: () => Promise<Record<string, unknown>>;
}

/** One service's readiness: database, consumers, its own checks; figures for administrators. */
export function serviceHealth(config: HealthConfig, parts: ServiceHealthParts): ServiceHealth {
  const checks = [
    ...(parts.db ? [databaseCheck(parts.db, config.checkTimeoutMs)] : []),
    ...(parts.monitor ? parts.monitor.checks(parts.consumers ?? []) : []),
    ...(parts.checks ?? []),
  ];
  return {
    checks,
    // The checks run concurrently and each is bounded; leave them room before the probe gives up.
    checkTimeoutMs: config.checkTimeoutMs + 1000,
    details: async () => ({
      ...(parts.monitor ? { consumers: await parts.monitor.report() } : {}),
      ...(parts.facts ? await parts.facts() : {}),
    }),
  };
}
