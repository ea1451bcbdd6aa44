import { withDeadline, type EventBus } from '@estate/platform';
import { completeness, type CompletenessReport, type LogFact } from './domain/trail-completeness';
import type { AuditRepository } from './store/audit.repository';

/**
 * How long verify waits for the log ends. A broker that is reconnecting retries for up to half a
 * minute; verify answers sooner, saying the logs were out of reach (the chain's answer stands).
 */
const LOG_ENDS_MS = 3000;

/** Answers whether the trail holds (or dead-lettered) every message of the audited logs. */
export class TrailCompleteness {
  constructor(private readonly repo: AuditRepository, private readonly bus: EventBus, private readonly topics: string[]) {}

  async report(): Promise<CompletenessReport & { logsReachable: boolean }> {
    // The log ends are read first: a message arriving in between shows as pending, never as missing.
    const logs = await this.logEnds();
    const { ledger, deadLetters } = await this.repo.consumption(this.topics);
    const report = completeness(ledger, logs ?? [], deadLetters);
    // With the broker away the trail can still prove it has no holes, but not that it is caught up.
    return logs ? { ...report, logsReachable: true } : { ...report, caughtUp: false, logsReachable: false };
  }

  private async logEnds(): Promise<LogFact[] | undefined> {
    const ends = await withDeadline(this.readLogEnds(), LOG_ENDS_MS);
    return ends === 'overran' ? undefined : ends;
  }

  private async readLogEnds(): Promise<LogFact[] | undefined> {
    try {
      const logs: LogFact[] = [];
      for (const topic of this.topics) {
        for (const o of await this.bus.offsets(topic)) logs.push({ topic, partition: o.partition, low: o.low, high: o.high });
      }
      return logs;
    } catch {
      return undefined;
    }
  }
}
