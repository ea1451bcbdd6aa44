import { SerialQueue, withDeadline, type Logger } from '@estate/platform';
import type { CatalogEntry } from '@estate/events';
import type { ChangedVersions } from './catalog.publisher';

/** How long a stop waits for the held entries to go out. */
const STOP_WAIT_MS = 1000;

/**
 * Sends entries (each with its headers, and of each only the `changed` versions with its head);
 * entries undefined: the sender reads the named tools' committed entries itself.
 */
export type CatalogSend = (names: string[], headers: (name: string) => Record<string, string>, entries?: CatalogEntry[], changed?: ChangedVersions) => Promise<void>;

const RETRY_MS = 1000;

interface Held {
  headers: Record<string, string>;
  entry?: CatalogEntry;
  /** The versions changed by every batch held (undefined: all of them, or not known). */
  changed?: Set<string>;
}

/** What a held tool must send once more batches changed it: their versions together. */
function mergedChanges(held: Held | undefined, changed: ReadonlySet<string> | undefined): Set<string> | undefined {
  if (changed === undefined || (held !== undefined && held.changed === undefined)) return undefined;
  return new Set([...(held?.changed ?? []), ...changed]);
}

/**
 * Paces the catalog topic per tool (off unless ESTATE_CATALOG_REPUBLISH_MS says). A change sends
 * the versions it touched and the tool's head, which lists every version, so a tool published over
 * and over (a CI loop, a burst) still sends a head that grows with its history; pacing merges the
 * changes of a busy tool into one send. A tool's first change after a quiet `gapMs` goes out at once (a lone
 * publish reaches the edges as fast as before); changes that come sooner are held and merged, and
 * its latest committed entry goes out `gapMs` after the previous one. The projection itself
 * is not held back; only what the edges hear of a busy tool is, by at most `gapMs`.
 *
 * Every send goes through one queue, and a held tool keeps only the entry of the last batch that
 * changed it (batches commit one after another), so the log receives a tool's entries in the order
 * they were committed: a compacted topic keeps the newest. A crash loses nothing held: discovery republishes every entry on start.
 */
export class CatalogRepublisher {
  private readonly queue = new SerialQueue();
  private readonly lastSent = new Map<string, number>();
  /** Each held tool's headers and, when the batch knew it, its entry as last committed. */
  private readonly held = new Map<string, Held>();
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly send: CatalogSend,
    private readonly gapMs: number,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** After a batch committed: its tools' entries (as committed, when known) go out now or when their gap is over. */
  offer(names: string[], headers: (name: string) => Record<string, string>, entries?: CatalogEntry[], changed?: ChangedVersions): Promise<void> {
    const at = this.now();
    const due: number[] = [];
    names.forEach((name, index) => {
      const held = this.held.get(name);
      if (this.gapMs > 0 && (held !== undefined || at - (this.lastSent.get(name) ?? -Infinity) < this.gapMs)) {
        this.held.set(name, { headers: headers(name), entry: entries?.[index], changed: mergedChanges(held, changed?.(name)) });
      } else due.push(index);
    });
    this.schedule();
    if (due.length === 0) return Promise.resolve();
    const dueNames = due.map((i) => names[i]);
    return this.queue.run(async () => {
      for (const name of dueNames) this.lastSent.set(name, this.now());
      await this.send(dueNames, headers, entries && due.map((i) => entries[i]), changed);
    });
  }

  /** Work that sends on its own (every entry after a rebuild), in turn with the paced sends; what was held is in it. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.queue.run(async () => {
      this.held.clear();
      this.lastSent.clear();
      return work();
    });
  }

  /**
   * Work done between sends (no send is in flight while it runs); with `sendHeld`, once every entry
   * held back has gone out, so the topic is as far as the committed catalog.
   */
  async inTurn<T>(work: () => Promise<T>, sendHeld = false): Promise<T> {
    if (sendHeld) await this.flush(true);
    return this.queue.run(work);
  }

  /**
   * Sends what is held now, whatever its gap; waits at most a second for it. With the broker away
   * a send retries for half a minute: it is left behind then, like the relay's pass, and the next
   * start republishes what was held (nothing is lost, the stop stays within its bounds).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const sent = this.flush(true).catch((error: unknown) => this.logger.warn({ err: error }, 'could not send the held catalog entries before stopping; the next start republishes them'));
    if ((await withDeadline(sent, STOP_WAIT_MS)) === 'overran') {
      this.logger.warn({ ms: STOP_WAIT_MS }, 'held catalog entries still sending at stop; left behind (the next start republishes them)');
    }
  }

  private schedule(): void {
    if (this.stopped || this.timer !== undefined || this.held.size === 0) return;
    let next = Infinity;
    for (const name of this.held.keys()) next = Math.min(next, (this.lastSent.get(name) ?? 0) + this.gapMs);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush(false).then(() => this.schedule(), (error: unknown) => {
        this.logger.warn({ err: error }, 'could not send held catalog entries; retrying');
        if (!this.stopped) this.timer = setTimeout(() => { this.timer = undefined; this.schedule(); }, RETRY_MS);
      });
    }, Math.max(0, next - this.now()));
    this.timer.unref?.();
  }

  /**
   * The held tools whose gap is over (all of them when `all`), sent as their last batch committed
   * them (read back only when the batch did not know an entry); put back when the send fails.
   */
  private flush(all: boolean): Promise<void> {
    return this.queue.run(async () => {
      const at = this.now();
      const names = [...this.held.keys()].filter((name) => all || at - (this.lastSent.get(name) ?? -Infinity) >= this.gapMs);
      if (names.length === 0) return;
      const taken = new Map(names.map((name) => [name, this.held.get(name) as Held]));
      for (const name of names) {
        this.held.delete(name);
        this.lastSent.set(name, at);
      }
      const headers = (name: string) => (taken.get(name) as Held).headers;
      const changed = (name: string) => taken.get(name)?.changed;
      const known = names.filter((name) => taken.get(name)?.entry !== undefined);
      const unknown = names.filter((name) => taken.get(name)?.entry === undefined);
      try {
        if (known.length > 0) await this.send(known, headers, known.map((name) => taken.get(name)?.entry as CatalogEntry), changed);
        if (unknown.length > 0) await this.send(unknown, headers, undefined, changed);
      } catch (error) {
        // Sent twice at worst (a compacted topic keeps the newest): never lost. A tool held again since keeps its newer
        // entry, and the versions of both.
        for (const [name, held] of taken) {
          const newer = this.held.get(name);
          this.held.set(name, newer === undefined ? held : { ...newer, changed: mergedChanges(held, newer.changed) });
        }
        throw error;
      }
      this.forgetQuiet(at);
    });
  }

  /** Tools sent longer than a gap ago need no time kept: the map stays as large as the busy part of the catalog. */
  private forgetQuiet(at: number): void {
    if (this.lastSent.size < 1024) return;
    for (const [name, sent] of this.lastSent) if (at - sent >= this.gapMs && !this.held.has(name)) this.lastSent.delete(name);
  }
}
