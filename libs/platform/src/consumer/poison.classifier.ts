/**
 * Thrown (or returned as a reason) when a message can never be applied, whatever is retried: bad
 * shape, text the store refuses, a value out of range.
 */
export class PoisonMessage extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'PoisonMessage';
  }
}

/**
 * SQLSTATE classes a retry cannot fix: 22 data exception (U+0000, bad dates, numbers out of
 * range), 23 integrity constraint violation, 54 program limit exceeded (an index row too large).
 */
const POISON_SQLSTATE_CLASSES = new Set(['22', '23', '54']);

interface MaybeDatabaseError {
  code?: unknown;
  constraint?: unknown;
  message?: unknown;
  driverError?: { code?: unknown; constraint?: unknown };
}

/**
 * Why a handler's failure is the message's fault, or undefined when it may be an outage (a lost
 * connection, a broker away, a deadlock, a serialization failure): those are retried, never
 * dead-lettered. `dedupeConstraints` name unique constraints whose conflict means "already
 * recorded", which a retry resolves.
 */
export function poisonReason(error: unknown, dedupeConstraints: readonly string[] = []): string | undefined {
  if (error instanceof PoisonMessage) return error.reason;
  // JavaScript raises these on values it cannot handle (an invalid date, a string too long); a
  // network or database outage never surfaces as one.
  if (error instanceof RangeError || error instanceof SyntaxError || error instanceof TypeError) {
    return `${error.name}: ${error.message}`;
  }
  const db = (error ?? {}) as MaybeDatabaseError;
  const code = typeof db.code === 'string' ? db.code : db.driverError?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return undefined;
  if (!POISON_SQLSTATE_CLASSES.has(code.slice(0, 2))) return undefined;
  const constraint = db.constraint ?? db.driverError?.constraint;
  if (code === '23505' && typeof constraint === 'string' && dedupeConstraints.includes(constraint)) return undefined;
  return `PostgreSQL ${code}: ${typeof db.message === 'string' ? db.message : 'refused the value'}`;
}
