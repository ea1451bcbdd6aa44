import type { EventBus, PartitionOffsets } from '@estate/platform';

interface Mark {
  low: bigint;
  high: bigint;
}

/**
 * Whether the catalog topic still holds what discovery put there. Discovery is the topic's only
 * writer, and every record it sends moves the end by one: the end may only have moved by what was
 * sent since the last look (more, if a send that failed had landed), and the start never moves
 * (compaction removes records inside the log, not at its start). A topic deleted, recreated or
 * truncated breaks one of the two, however many records were sent to it since; the edges then
 * lack entries, so the whole catalog must go out again. Every check and every send runs in the
 * republisher's turn, so no send is in flight while the offsets are read.
 */
export class CatalogTopicWatch {
  /** The topic's offsets at the last look; undefined until a look succeeded. */
  private seen?: Mark;
  /** Records sent since `seen` was read. */
  private sent = 0n;

  constructor(private readonly bus: Pick<EventBus, 'offsets'>, private readonly topic: string) {}

  /** The publisher every catalog send goes through, counting what reached the topic. */
  counting(publisher: Pick<EventBus, 'publish'>): Pick<EventBus, 'publish'> {
    return {
      publish: async (topic, messages) => {
        await publisher.publish(topic, messages);
        if (topic === this.topic) this.sent += BigInt(messages.length);
      },
    };
  }

  /** After the whole catalog went out: the topic as it is now is what later looks compare with. */
  async settle(): Promise<void> {
    this.seen = undefined;
    this.sent = 0n;
    // Not read now (a broker hiccup): the next look takes its mark instead.
    this.seen = markOf(await this.bus.offsets(this.topic).catch(() => undefined));
  }

  /** Why the topic no longer holds what discovery sent, or undefined while it does (the mark then moves on). */
  async lost(): Promise<string | undefined> {
    const offsets = await this.bus.offsets(this.topic);
    if (offsets.length === 0) return 'no longer exists';
    const now = markOf(offsets) as Mark;
    const seen = this.seen;
    if (seen !== undefined) {
      const expected = seen.high + this.sent;
      if (now.high < expected) return `holds ${now.high} records where discovery had put ${expected}`;
      if (now.low > seen.low) return `starts at offset ${now.low}, no longer at ${seen.low}`;
    }
    this.seen = now;
    this.sent = 0n;
    return undefined;
  }
}

/** The partitions' offsets summed (the catalog topic has one partition; more change nothing here). */
function markOf(offsets: PartitionOffsets[] | undefined): Mark | undefined {
  if (offsets === undefined || offsets.length === 0) return undefined;
  return offsets.reduce((mark, p) => ({ low: mark.low + BigInt(p.low), high: mark.high + BigInt(p.high) }), { low: 0n, high: 0n });
}
