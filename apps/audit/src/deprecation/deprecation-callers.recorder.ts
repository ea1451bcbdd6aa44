import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { Logger } from '@estate/platform';
import { toAuditEntry, type AuditEntryContent } from '../domain/audit-entry.mapper';
import { storableEntry } from '../store/storable-entry';
import { deprecationCallersEvent, windowStart } from './deprecation-callers';
import { pendingDeprecations, versionCallersSince } from './deprecation-callers.queries';

/** Appends one entry to the hash chain (deduped on its event id) and signals the feed. */
export type AppendEntry = (content: AuditEntryContent) => Promise<unknown>;

export interface DeprecationCallersOptions {
  /** The registry log's topic: deprecations are read from it and follow-ups recorded on it. */
  registryTopic: string;
  /** ESTATE_DEPRECATION_CALLERS_DAYS: how far back a call counts. */
  windowDays: number;
  /** How often the trail is looked at for new deprecations. */
  intervalMs: number;
  /**
   * How long a deprecation waits in the trail before its callers are counted: calls arrive on
   * another log, read by another consumer, and those made just before the deprecation may be
   * recorded just after it.
   */
  settleMs: number;
  clock?: () => Date;
}

const PAGE = 50;

/**
 * Follows every `ToolVersionDeprecated` in the trail with a `ToolVersionDeprecationCallers` entry
 * naming who called that version in the window. It reads the trail, not the log: it needs no
 * place in the recorder's write path (so batching there changes nothing here), and whatever is
 * recorded, by any instance, before or after a crash, is found and answered exactly once.
 */
export class DeprecationCallersRecorder implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private running: Promise<void> = Promise.resolve();
  private afterSeq = 0;
  private stopped = false;

  constructor(private readonly db: DataSource, private readonly append: AppendEntry, private readonly options: DeprecationCallersOptions, private readonly logger: Logger) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.wake(), this.options.intervalMs);
    this.timer.unref();
    this.wake();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** Runs a sweep unless one is running (the next tick catches what it missed). */
  wake(): void {
    if (this.stopped) return;
    this.running = this.running.then(() => this.sweep()).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'could not record the callers of a deprecation; trying again on the next tick');
    });
  }

  /** Answers every deprecation recorded since the last sweep; stops at the first failure, which the next sweep retries. */
  async sweep(): Promise<void> {
    for (;;) {
      const pending = await pendingDeprecations(this.db, this.options.registryTopic, this.afterSeq, this.options.settleMs, PAGE);
      for (const deprecation of pending) {
        if (this.stopped) return;
        const now = this.options.clock?.() ?? new Date();
        const from = windowStart(deprecation, this.options.windowDays);
        const { callers, total } = deprecation.tool !== null && deprecation.version !== null
          ? await versionCallersSince(this.db, deprecation.tool, deprecation.version, from)
          : { callers: [], total: 0 };
        const event = deprecationCallersEvent(deprecation, callers, total, this.options.windowDays, now);
        await this.append(storableEntry(toAuditEntry('registry', this.options.registryTopic, event)));
        this.afterSeq = deprecation.seq;
        this.logger.info({ tool: deprecation.tool, version: deprecation.version, callers: total }, 'recorded the callers of a deprecated version');
      }
      if (pending.length < PAGE) return;
    }
  }
}
