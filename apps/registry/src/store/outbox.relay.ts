import type { CloudEventOptions } from '@estate/events';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import {
  batchBySize, BusClientProxy, extractTraceContext, injectTraceHeaders, messageBytes, openSpan, publishOrSetAside, REGISTRY_EVENT_MAX_BYTES, SpanKind,
  type EventBus, type Logger, type OpenSpan, type OutgoingMessage, type TopicSpec,
} from '@estate/platform';
import { eventMessage } from './event.message';
import { rowToEnvelope, type LoggedEventRow } from './event.row';
import { APPEND_CHANNEL } from './postgres-event-store';
import { RelayCheckpointEntity } from './relay-checkpoint.entity';
import { RelayParkedEntity } from './relay-parked.entity';
import { readRelayBatch, RELAY_BATCH } from './relay.reads';
import { RelayWake } from './relay.wake';

const FAILURE_LOG_EVERY_MS = 10_000;
/** How long a stop waits for the pass in progress. */
const STOP_WAIT_MS = 1000;

/**
 * Publishes stored events to Kafka in commit-safe order (the transactional outbox is the event
 * table itself). It reads only rows whose transaction is older than every transaction still
 * running, ordered by (transaction id, position): a row that commits late can never land behind
 * the checkpoint. Delivery is at-least-once; consumers dedupe by event id.
 *
 * The event store is the truth and the log only a copy: the relay remembers how many messages the
 * log held after its sends and checks it on every pass (beside the read, so a send waits for one
 * round trip, not two in a row) and before every further send. An idle relay passes every few
 * seconds (relay.wake.ts); the append NOTIFY wakes it otherwise. A log that holds
 * fewer (a broker's data lost, a topic deleted or truncated) gets every stored event again, in the
 * original order with the original ids, before anything new.
 */
export class OutboxRelay {
  /** This instance's own session: holds the relay lock (when leading) and LISTENs for appends. */
  private session?: Client;
  private holdsLock = false;
  /**
   * The checkpoint's log size and last event as this instance wrote them last, while it leads: the
   * check before a send compares with it instead of reading the row back first. Read again after
   * taking the lock and after any failed pass (a write may have happened or not).
   */
  private logged?: { logHigh: string; lastEventId: string | null };
  private readonly wake = new RelayWake(() => this.kick(), () => (!this.holdsLock || this.lastFailure !== undefined ? 'always' : 'idle'));
  private running = false;
  private again = false;
  private stopped = false;
  /** The last pass's error, until a pass succeeds (health reports say why events wait). */
  lastFailure?: string;
  private failedPasses = 0;
  private lastFailureLog = 0;
  private readonly topic: string;
  private readonly spec: TopicSpec;
  /** Sends go through the bus transport's client; offsets and topic repairs ask the bus itself. */
  private readonly client: BusClientProxy;

  constructor(
    private readonly db: DataSource,
    private readonly databaseUrl: string,
    private readonly bus: EventBus,
    topic: string | TopicSpec,
    private readonly logger: Logger,
    readonly name = 'kafka',
    /** The bytes one send may carry; within the registry topic's declared max.message.bytes. */
    private readonly maxBatchBytes = REGISTRY_EVENT_MAX_BYTES,
    /** How the `ce_*` headers name this estate (`ESTATE_ID`, `ESTATE_AUDIT_PUBLIC_URL`); the defaults otherwise. */
    private readonly cloudEvents?: CloudEventOptions,
  ) {
    this.spec = typeof topic === 'string' ? { name: topic } : topic;
    this.client = new BusClientProxy(bus);
    this.topic = this.spec.name;
  }

  async start(): Promise<void> {
    // Raw SQL: the xid8 zero ('0'::xid8) has no TypeORM literal.
    await this.db.query(
      `INSERT INTO registry.relay_checkpoint (relay, tx_id, position) VALUES ($1, '0'::xid8, 0) ON CONFLICT DO NOTHING`,
      [this.name],
    );
    await this.lead();
    this.wake.start();
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake.stop();
    // A pass sending to a broker that is away retries for half a minute: it is left behind after a
    // second. Its checkpoint moves only after its sends, so the next leader sends them again.
    const until = Date.now() + STOP_WAIT_MS;
    while (this.running && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
    if (this.running) this.logger.warn({ ms: STOP_WAIT_MS }, 'relay pass still sending at stop; left behind (the next leader sends its events again)');
    // Ending the session releases the advisory lock: a standby relay takes over on its next tick.
    await this.session?.end().catch(() => undefined);
  }

  /**
   * An outage fails every pass (four a second: the wake timer retries a failing relay on every tick): the first failure is an error line with its
   * cause, the following ones a short warning at most every ten seconds, until a pass succeeds.
   */
  private failed(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.failedPasses += 1;
    const now = Date.now();
    if (this.lastFailure === undefined) this.logger.error({ err: error }, 'relay pass failed; will retry');
    else if (now - this.lastFailureLog >= FAILURE_LOG_EVERY_MS) this.logger.warn({ failedPasses: this.failedPasses, error: message }, 'relay passes still failing; retrying');
    else {
      this.lastFailure = message;
      return;
    }
    this.lastFailureLog = now;
    this.lastFailure = message;
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
    this.wake.passed();
    void this.lead()
      .then((leading) => (leading ? this.drain() : 0))
      .then(() => {
        if (this.lastFailure !== undefined) this.logger.info({ failedPasses: this.failedPasses }, 'relay passes succeed again');
        this.lastFailure = undefined;
        this.failedPasses = 0;
      })
      .catch((error: unknown) => {
        this.logged = undefined;
        this.failed(error);
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
    // Raw SQL: advisory locks and LISTEN live on this instance's own session, outside TypeORM's pool.
    const result = await session.query<{ locked: boolean }>(
      `SELECT pg_try_advisory_lock(hashtext('estate.registry.relay'), hashtext($1)) AS locked`, [this.name],
    );
    if (!result.rows[0].locked) return false;
    await session.query(`LISTEN ${APPEND_CHANNEL}`);
    this.logged = undefined;
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

  /**
   * Publish until nothing visible is left. Returns the number of events sent. After a send, what
   * the log held then is the check for the next read (no second question to the broker). A read
   * that took everything readable ends the pass unless an append was signalled since it began:
   * a later append's NOTIFY comes after the read started, and events behind an older transaction
   * are what the read's heldBack reports.
   */
  async drain(): Promise<number> {
    let sent = 0;
    let held: bigint | undefined;
    for (;;) {
      // The log's size is asked for (a Kafka round trip) beside the read: the first send waits for
      // the slower of the two, not both. The database is used one query at a time, as before.
      const asked = held !== undefined && this.holdsLock ? Promise.resolve(held) : this.held();
      asked.catch(() => undefined); // awaited in checkLog; a failure meanwhile is not an unhandled rejection
      // Signals from here on are for events this read may miss: they keep the pass going.
      this.again = false;
      const { rows, complete, heldBack } = await readRelayBatch(this.db, this.name, this.maxBatchBytes);
      const checked = await this.checkLog(asked);
      held = undefined;
      if (checked === undefined) continue; // the log lost events: the checkpoint went back, read again
      if (rows.length > 0) {
        this.wake.caughtUp();
        const outcome = await this.sendRows(rows, checked);
        sent += outcome.sent;
        held = outcome.held;
        if (held === undefined || !complete) continue;
      }
      if (heldBack) this.wake.heldBack();
      // Signalled meanwhile: read on here (a pass of its own would ask the log's size again). A
      // relay that lost its lock ends the pass instead, and the next one asks for the lock.
      if (!this.again || !this.holdsLock) return sent;
    }
  }

  /** Sends rows read in one go; `held` is undefined when the log lost events and is refilled first. */
  private async sendRows(rows: LoggedEventRow[], checked: bigint): Promise<{ sent: number; held: bigint | undefined }> {
    const outgoing = rows.map((row) => this.outgoing(row));
    // Spans of events handed to sendBatch are ended there; the rest (a refill comes first) here.
    let handed = 0;
    let sent = 0;
    let held: bigint | undefined = checked;
    try {
      // Batches by bytes as well as count: the topic refuses a batch over its max.message.bytes.
      for (const batch of batchBySize(outgoing, (o) => messageBytes(o.message), RELAY_BATCH, this.maxBatchBytes)) {
        handed += batch.length;
        held = await this.sendBatch(batch, held);
        if (held === undefined) break;
        sent += batch.length;
      }
    } finally {
      for (const { span } of outgoing.slice(handed)) span.end();
    }
    return { sent, held };
  }

  /**
   * Sends one batch onto a log checked to hold `before` messages (no fewer than the relay put
   * there) and moves the checkpoint past it. Returns what the log holds after the send, which is
   * the check before the next send; undefined when the log lost events and is refilled first.
   */
  private async sendBatch(batch: Outgoing[], before: bigint): Promise<bigint | undefined> {
    // An event the bus refuses for its size is refused on every pass: it is parked, not retried forever.
    let parked: number;
    try {
      parked = await publishOrSetAside(this.client.publisher, this.topic, batch, (o) => o.message, (o, error) => this.park(o, error.message));
    } catch (error) {
      for (const { span } of batch) span.end(error);
      // A topic deleted under a send fails it (the bus gives up on a log only the relay recreates):
      // refilled at once, in this pass, rather than failing passes until the next log check. The
      // status says why events wait until the refill is through (the pass's success clears it).
      if ((await this.held().catch(() => null)) === undefined) {
        this.lastFailure = `${this.topic} no longer exists (a send to it failed: ${error instanceof Error ? error.message : String(error)}); creating it again and re-sending every stored event`;
        await this.startOver(undefined, before, this.logged?.lastEventId ?? null);
        return undefined;
      }
      throw error;
    }
    for (const { span } of batch) span.end();
    const held = await this.held();
    const last = batch[batch.length - 1].row;
    const expected = before + BigInt(batch.length - parked);
    if (held === undefined || held < expected) {
      await this.startOver(held, expected, last.id);
      return undefined;
    }
    // Never backwards, even if a relay that lost its lock mid-pass finishes late.
    // Raw SQL: a row comparison on (xid8, bigint), which TypeORM cannot say.
    await this.db.query(
      `UPDATE registry.relay_checkpoint SET tx_id = $2::xid8, position = $3, log_high = $4, last_event_id = $5
        WHERE relay = $1 AND (tx_id, position) < ($2::xid8, $3::bigint)`,
      [this.name, last.tx_id, last.position, String(held), last.id],
    );
    this.logged = { logHigh: String(held), lastEventId: last.id };
    return held;
  }

  private async park(refused: Outgoing, reason: string): Promise<void> {
    const { row, message } = refused;
    const bytes = messageBytes(message);
    await this.db.manager.createQueryBuilder().insert().into(RelayParkedEntity)
      .values({ relay: this.name, eventId: row.id, streamId: row.stream_id, streamVersion: row.stream_version, bytes, reason })
      .orIgnore()
      .execute();
    this.logger.error(
      { topic: this.topic, eventId: row.id, stream: row.stream_id, position: row.stream_version, bytes },
      `event ${row.id} (${row.stream_id} #${row.stream_version}, ${bytes} bytes) was refused by ${this.topic} and parked in registry.relay_parked; the events behind it go on: ${reason}`,
    );
  }

  /** One span per event, in the trace the event was appended in; its context travels in the message's headers. */
  private outgoing(row: LoggedEventRow): Outgoing {
    const envelope = rowToEnvelope(row);
    const span = openSpan(`relay send ${this.topic}`, { 'messaging.destination.name': this.topic, 'estate.event_id': envelope.id, 'estate.event_type': envelope.type }, {
      parent: extractTraceContext({ traceparent: row.traceparent ?? undefined }), kind: SpanKind.PRODUCER,
    });
    const message = eventMessage(envelope, this.cloudEvents);
    return { row, span, message: { ...message, headers: injectTraceHeaders(message.headers ?? {}, span.context) } };
  }

  /**
   * Compares the log with what the relay put there. Returns the messages the log holds, or
   * undefined when it lost some (the checkpoint is then reset: the next read starts over).
   */
  private async checkLog(asked = this.held()): Promise<bigint | undefined> {
    const held = await asked;
    const checkpoint = (this.holdsLock ? this.logged : undefined)
      ?? (await this.db.manager.findOne(RelayCheckpointEntity, { where: { relay: this.name }, select: { logHigh: true, lastEventId: true } }))
      ?? undefined;
    if (checkpoint) this.logged = { logHigh: checkpoint.logHigh, lastEventId: checkpoint.lastEventId };
    const expected = BigInt(checkpoint?.logHigh ?? '0');
    if (held !== undefined && held >= expected) return held;
    if (held === undefined && expected === 0n) {
      await this.bus.ensureTopics([this.spec]);
      return (await this.held()) ?? 0n;
    }
    await this.startOver(held, expected, checkpoint?.lastEventId ?? null);
    return undefined;
  }

  private async startOver(held: bigint | undefined, expected: bigint, lastEventId: string | null): Promise<void> {
    this.logger.warn(
      { topic: this.topic, held: held === undefined ? null : String(held), expected: String(expected), lastEventId },
      `the ${this.topic} log ${held === undefined ? 'no longer exists' : `holds ${held} messages`} where the relay had put ${expected} (last event ${lastEventId ?? 'unknown'}): it was reset, truncated or recreated; re-sending every stored event in its original order`,
    );
    await this.bus.ensureTopics([this.spec]);
    const now = (await this.held()) ?? 0n;
    // Raw SQL: the xid8 zero ('0'::xid8) has no TypeORM literal.
    await this.db.query(
      `UPDATE registry.relay_checkpoint SET tx_id = '0'::xid8, position = 0, log_high = $2, last_event_id = NULL WHERE relay = $1`,
      [this.name, String(now)],
    );
    this.logged = { logHigh: String(now), lastEventId: null };
  }

  /** How many messages the topic holds (the partitions' high-water marks summed); undefined when it does not exist. */
  private async held(): Promise<bigint | undefined> {
    const offsets = await this.bus.offsets(this.topic);
    if (offsets.length === 0) return undefined;
    return offsets.reduce((sum, p) => sum + BigInt(p.high), 0n);
  }
}

interface Outgoing {
  row: LoggedEventRow;
  message: OutgoingMessage;
  span: OpenSpan;
}
