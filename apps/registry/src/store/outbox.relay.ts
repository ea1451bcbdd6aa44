import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { extractTraceContext, injectTraceHeaders, openSpan, SpanKind, type EventBus, type Logger, type OpenSpan, type OutgoingMessage, type TopicSpec } from '@estate/platform';
import { APPEND_CHANNEL, rowToEnvelope } from './postgres-event-store';

const BATCH = 500;
const POLL_MS = 250;
/** How often an idle relay checks that the log still holds what it sent. */
const CHECK_MS = 5000;

/**
 * Publishes stored events to Kafka in commit-safe order (the transactional outbox is the event
 * table itself). It reads only rows whose transaction is older than every transaction still
 * running, ordered by (transaction id, position): a row that commits late can never land behind
 * the checkpoint. Delivery is at-least-once; consumers dedupe by event id.
 *
 * The event store is the truth and the log only a copy: the relay remembers how many messages the
 * log held after its sends and checks it before every send and every few seconds. A log that holds
 * fewer (a broker's data lost, a topic deleted or truncated) gets every stored event again, in the
 * original order with the original ids, before anything new.
 */
export class OutboxRelay {
  /** This instance's own session: holds the relay lock (when leading) and LISTENs for appends. */
  private session?: Client;
  private holdsLock = false;
  private timer?: NodeJS.Timeout;
  private running = false;
  private again = false;
  private stopped = false;
  /** The last pass's error, until a pass succeeds (health reports say why events wait). */
  lastFailure?: string;
  private lastCheck = 0;
  private checkSoon = true;
  private readonly topic: string;
  private readonly spec: TopicSpec;

  constructor(
    private readonly db: DataSource,
    private readonly databaseUrl: string,
    private readonly bus: EventBus,
    topic: string | TopicSpec,
    private readonly logger: Logger,
    readonly name = 'kafka',
  ) {
    this.spec = typeof topic === 'string' ? { name: topic } : topic;
    this.topic = this.spec.name;
  }

  async start(): Promise<void> {
    await this.db.query(
      `INSERT INTO registry.relay_checkpoint (relay, tx_id, position) VALUES ($1, '0'::xid8, 0) ON CONFLICT DO NOTHING`,
      [this.name],
    );
    await this.lead();
    this.timer = setInterval(() => this.kick(), POLL_MS);
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    while (this.running) await new Promise((resolve) => setTimeout(resolve, 10));
    // Ending the session releases the advisory lock: a standby relay takes over on its next tick.
    await this.session?.end().catch(() => undefined);
  }

  /** Whether this instance holds the relay lock and so is the one publishing. */
  get leading(): boolean {
    return this.holdsLock;
  }

  /** Runs one pass now, or right after the pass in progress. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.lead()
      .then((leading) => (leading ? this.drain() : 0))
      .then(() => (this.lastFailure = undefined))
      .catch((error: unknown) => {
        this.lastFailure = error instanceof Error ? error.message : String(error);
        this.checkSoon = true;
        this.logger.error({ err: error }, 'relay pass failed; will retry');
      })
      .finally(() => {
        this.running = false;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /**
   * Only one relay per database publishes: two would send every batch twice and could move the
   * checkpoint backwards. The lock is session-scoped, so it is released the moment this instance
   * stops or its connection dies; a standby asks again on every tick.
   */
  private async lead(): Promise<boolean> {
    if (this.holdsLock) return true;
    const session = this.session ?? (await this.openSession());
    const result = await session.query<{ locked: boolean }>(
      `SELECT pg_try_advisory_lock(hashtext('estate.registry.relay'), hashtext($1)) AS locked`, [this.name],
    );
    if (!result.rows[0].locked) return false;
    await session.query(`LISTEN ${APPEND_CHANNEL}`);
    this.holdsLock = true;
    this.logger.info({ relay: this.name }, 'relay lock taken; publishing');
    return true;
  }

  private async openSession(): Promise<Client> {
    const session = new Client({ connectionString: this.databaseUrl });
    const lost = () => {
      if (this.session !== session) return;
      this.session = undefined;
      this.holdsLock = false;
    };
    session.on('error', (error) => {
      this.logger.warn({ err: error }, 'relay session lost; the lock went with it');
      lost();
    });
    session.on('end', lost);
    session.on('notification', () => this.kick());
    try {
      await session.connect();
    } catch (error) {
      await session.end().catch(() => undefined);
      throw error;
    }
    this.session = session;
    return session;
  }

  /** Publish until nothing visible is left. Returns the number of events sent. */
  async drain(): Promise<number> {
    let sent = 0;
    for (;;) {
      const batch = await this.readBatch();
      if (batch.length === 0) {
        if (this.checkSoon || Date.now() - this.lastCheck >= CHECK_MS) await this.checkLog();
        return sent;
      }
      // Before sending: a log that lost events gets them back first, so no event lands before its predecessors.
      const before = await this.checkLog();
      if (before === undefined) continue;
      await this.send(batch);
      const held = await this.held();
      const expected = before + BigInt(batch.length);
      if (held === undefined || held < expected) {
        await this.startOver(held, expected, batch[batch.length - 1].id);
        continue;
      }
      const last = batch[batch.length - 1];
      // Never backwards, even if a relay that lost its lock mid-pass finishes late.
      await this.db.query(
        `UPDATE registry.relay_checkpoint SET tx_id = $2::xid8, position = $3, log_high = $4, last_event_id = $5
          WHERE relay = $1 AND (tx_id, position) < ($2::xid8, $3::bigint)`,
        [this.name, last.tx_id, last.position, String(held), last.id],
      );
      sent += batch.length;
    }
  }

  /** One span per event, in the trace the event was appended in; its context travels in the message's headers. */
  private async send(batch: RelayRow[]): Promise<void> {
    const spans: OpenSpan[] = [];
    const messages = batch.map((row): OutgoingMessage => {
      const envelope = rowToEnvelope(row);
      const span = openSpan(`relay send ${this.topic}`, { 'messaging.destination.name': this.topic, 'estate.event_id': envelope.id, 'estate.event_type': envelope.type }, {
        parent: extractTraceContext({ traceparent: row.traceparent ?? undefined }), kind: SpanKind.PRODUCER,
      });
      spans.push(span);
      const headers = { 'estate-type': envelope.type, 'estate-version': String(envelope.version), 'estate-id': envelope.id };
      return { key: envelope.stream, value: JSON.stringify(envelope), headers: injectTraceHeaders(headers, span.context) };
    });
    try {
      await this.bus.publish(this.topic, messages);
      for (const span of spans) span.end();
    } catch (error) {
      for (const span of spans) span.end(error);
      throw error;
    }
  }

  /**
   * Compares the log with what the relay put there. Returns the messages the log holds, or
   * undefined when it lost some (the checkpoint is then reset: the next read starts over).
   */
  private async checkLog(): Promise<bigint | undefined> {
    this.lastCheck = Date.now();
    this.checkSoon = false;
    const held = await this.held();
    const rows: Array<{ log_high: string; last_event_id: string | null }> = await this.db.query(
      `SELECT log_high, last_event_id FROM registry.relay_checkpoint WHERE relay = $1`, [this.name],
    );
    const expected = BigInt(rows[0]?.log_high ?? '0');
    if (held !== undefined && held >= expected) return held;
    if (held === undefined && expected === 0n) {
      await this.bus.ensureTopics([this.spec]);
      return (await this.held()) ?? 0n;
    }
    await this.startOver(held, expected, rows[0]?.last_event_id ?? null);
    return undefined;
  }

  private async startOver(held: bigint | undefined, expected: bigint, lastEventId: string | null): Promise<void> {
    this.logger.warn(
      { topic: this.topic, held: held === undefined ? null : String(held), expected: String(expected), lastEventId },
      `the ${this.topic} log ${held === undefined ? 'no longer exists' : `holds ${held} messages`} where the relay had put ${expected} (last event ${lastEventId ?? 'unknown'}): it was reset, truncated or recreated; re-sending every stored event in its original order`,
    );
    await this.bus.ensureTopics([this.spec]);
    const now = (await this.held()) ?? 0n;
    await this.db.query(
      `UPDATE registry.relay_checkpoint SET tx_id = '0'::xid8, position = 0, log_high = $2, last_event_id = NULL WHERE relay = $1`,
      [this.name, String(now)],
    );
  }

  /** How many messages the topic holds (the partitions' high-water marks summed); undefined when it does not exist. */
  private async held(): Promise<bigint | undefined> {
    const offsets = await this.bus.offsets(this.topic);
    if (offsets.length === 0) return undefined;
    return offsets.reduce((sum, p) => sum + BigInt(p.high), 0n);
  }

  private async readBatch(): Promise<RelayRow[]> {
    return this.db.query(
      `SELECT e.position, e.tx_id::text AS tx_id, e.id, e.stream_id, e.stream_version, e.type, e.version, e.data,
              e.actor, e.correlation_id, e.occurred_at, e.traceparent
         FROM registry.events e, registry.relay_checkpoint c
        WHERE c.relay = $1
          AND (e.tx_id, e.position) > (c.tx_id, c.position)
          AND e.tx_id < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY e.tx_id, e.position
        LIMIT ${BATCH}`,
      [this.name],
    );
  }
}

interface RelayRow {
  position: string;
  tx_id: string;
  id: string;
  stream_id: string;
  stream_version: number;
  type: string;
  version: number;
  data: unknown;
  actor: string;
  correlation_id: string;
  occurred_at: Date;
  traceparent: string | null;
}
