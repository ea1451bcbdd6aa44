/**
 * Readiness is a list of named checks. Anyone may learn which checks pass; why one fails and the
 * figures behind it (lag, positions, counts) are for administrators only.
 */
export interface CheckResult {
  ok: boolean;
  /** Why the check fails, in one line (admin view only). */
  reason?: string;
}

export interface HealthCheck {
  name: string;
  run(): Promise<CheckResult>;
}

export interface CheckReport {
  name: string;
  state: 'pass' | 'fail';
  reason?: string;
}

export interface Readiness {
  ready: boolean;
  checks: CheckReport[];
  failing: string[];
}

/** Runs every check at once; one that throws or takes longer than `timeoutMs` fails with that as its reason. */
export async function runChecks(checks: readonly HealthCheck[], timeoutMs: number): Promise<Readiness> {
  const reports = await Promise.all(checks.map(async (check): Promise<CheckReport> => {
    try {
      const result = await withTimeout(check.run(), timeoutMs, `no answer within ${timeoutMs} ms`);
      return result.ok ? { name: check.name, state: 'pass' } : { name: check.name, state: 'fail', reason: result.reason };
    } catch (error) {
      return { name: check.name, state: 'fail', reason: error instanceof Error ? error.message : String(error) };
    }
  }));
  const failing = reports.filter((r) => r.state === 'fail').map((r) => r.name);
  return { ready: failing.length === 0, checks: reports, failing };
}

/** The view for callers without an admin token: names and states, nothing else. */
export function publicView(readiness: Readiness): Readiness {
  return { ready: readiness.ready, checks: readiness.checks.map(({ name, state }) => ({ name, state })), failing: readiness.failing };
}

export function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Anything that can run one SQL statement; TypeORM's DataSource fits. */
export interface Queryable {
  query(sql: string): Promise<unknown>;
}

/** `database`: a trivial round trip through the service's own pool, bounded by `timeoutMs`. */
export function databaseCheck(db: Queryable, timeoutMs: number): HealthCheck {
  return {
    name: 'database',
    run: async () => {
      try {
        // Raw SQL: a round trip that reads no table, so it fails only when the database does.
        await withTimeout(db.query('SELECT 1'), timeoutMs, `the database did not answer within ${timeoutMs} ms`);
        return { ok: true };
      } catch (error) {
        return { ok: false, reason: error instanceof Error ? error.message : String(error) };
      }
    },
  };
}
