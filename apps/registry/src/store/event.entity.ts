import { Column, Entity, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { XID8 } from '@estate/platform';

/**
 * The registry's event store: one row per event, appended only. `position` is the global append
 * order; `tx_id` the appending transaction, which the relay orders and filters by. Triggers a
 * migration puts on the table (refusing changes to stored events) are not modelled: TypeORM has
 * no notion of triggers, and its schema diff neither sees nor reports them.
 */
@Entity({ schema: 'registry', name: 'events' })
@Unique('events_stream_version_unique', ['streamId', 'streamVersion'])
@Index('events_tx_position', ['txId', 'position'])
export class RegistryEventEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  position!: string;

  @Column({ type: 'uuid', unique: true })
  id!: string;

  @Column({ name: 'stream_id', type: 'text' })
  streamId!: string;

  @Column({ name: 'stream_version', type: 'integer' })
  streamVersion!: number;

  @Column({ type: 'text' })
  type!: string;

  @Column({ type: 'integer' })
  version!: number;

  /** json, not jsonb: a published contract keeps its key order. */
  @Column({ type: 'json' })
  data!: unknown;

  @Column({ type: 'text' })
  actor!: string;

  @Column({ name: 'correlation_id', type: 'text' })
  correlationId!: string;

  @Column({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt!: Date;

  /**
   * xid8 (openDatabase lists the type for TypeORM). Set by the database, never by a write:
   * the relay's visibility rule needs the id of the transaction that inserted the row.
   */
  @Column({ name: 'tx_id', type: XID8, default: () => 'pg_current_xact_id()', insert: false, update: false })
  txId!: string;

  @Column({ type: 'text', nullable: true })
  traceparent!: string | null;
}
