/** One partition of an audited log: what the recorder handled against what the log holds. */
export interface PartitionReport {
  topic: string;
  partition: number;
  /** The next offset the recorder expects: everything below it was handled. */
  position: string;
  /** The next offset the log will write. */
  logEnd: string;
  /** Offsets below the position passed over without an entry or a dead letter (0 when complete). */
  missing: number;
  /** Offsets in the log the recorder has not reached yet. */
  pending: number;
}

export interface CompletenessReport {
  /** Every message up to the recorder's positions is in the trail or in the dead-letter list. */
  complete: boolean;
  /** The recorder has reached the end of every log. */
  caughtUp: boolean;
  deadLetters: number;
  partitions: PartitionReport[];
}

export interface LedgerFact {
  topic: string;
  partition: number;
  firstOffset: string;
  nextOffset: string;
  handled: number;
}

export interface LogFact {
  topic: string;
  partition: number;
  low: string;
  high: string;
}

/**
 * Compares the recorder's ledger with the logs. A partition the ledger has never seen starts at
 * the log's low offset; offsets the log no longer holds (retention) cannot be asked about.
 */
export function completeness(ledger: readonly LedgerFact[], logs: readonly LogFact[], deadLetters: number): CompletenessReport {
  const keyOf = (topic: string, partition: number): string => `${topic}\u0001${partition}`;
  const byKey = new Map(ledger.map((row) => [keyOf(row.topic, row.partition), row]));
  const partitions: PartitionReport[] = logs.map((log) => {
    const row = byKey.get(keyOf(log.topic, log.partition));
    byKey.delete(keyOf(log.topic, log.partition));
    const position = row ? BigInt(row.nextOffset) : BigInt(log.low);
    const missing = row ? Number(BigInt(row.nextOffset) - BigInt(row.firstOffset)) - row.handled : 0;
    const pending = BigInt(log.high) > position ? Number(BigInt(log.high) - position) : 0;
    return { topic: log.topic, partition: log.partition, position: String(position), logEnd: log.high, missing, pending };
  });
  // Partitions the log no longer reports (a deleted topic) still show what was handled.
  for (const row of byKey.values()) {
    const missing = Number(BigInt(row.nextOffset) - BigInt(row.firstOffset)) - row.handled;
    partitions.push({ topic: row.topic, partition: row.partition, position: row.nextOffset, logEnd: row.nextOffset, missing, pending: 0 });
  }
  return {
    complete: partitions.every((p) => p.missing === 0),
    caughtUp: partitions.every((p) => p.pending === 0),
    deadLetters,
    partitions,
  };
}
