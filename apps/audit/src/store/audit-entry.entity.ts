import { Column, Entity, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';

/** The one type the (type, seq) index leaves out: a filter for it reads the primary key instead. */
export const TYPE_INDEX_LEAVES_OUT = 'ToolCallCompleted';
/** The index's predicate; a query for any other type repeats it so the planner can use the index. */
export const TYPE_INDEX_PREDICATE = `type <> '${TYPE_INDEX_LEAVES_OUT}'`;

/**
 * One entry of the hash-chained trail. Append-only: triggers in the migration (and the function
 * they call) refuse UPDATE, DELETE and TRUNCATE; TypeORM does not model triggers, so the entity
 * cannot say so and the schema diff does not look at them.
 */
@Entity({ schema: 'audit', name: 'entries' })
@Unique('entries_event_id_unique', ['eventId'])
@Index('entries_tool_version_seq', ['tool', 'version', 'seq'])
@Index('entries_principal_seq', ['principal', 'seq'])
// Partial (migration TypeSeqWithoutCompletedCalls1764550000000): every type but completed calls, the bulk of the trail.
@Index('entries_type_seq', ['type', 'seq'], { where: TYPE_INDEX_PREDICATE })
// Partial (migration TopicSeqWithoutOutcomes1764540000000): registry entries only, for topicEntriesAfter.
@Index('entries_topic_seq', ['topic', 'seq'], { where: 'outcome IS NULL' })
// A BRIN index (migration OccurredAtBrin1764530000000): TypeORM cannot declare the access method, so it does not sync this one.
@Index('entries_occurred_at', { synchronize: false })
export class AuditEntryEntity {
  /** Chain order, which is also commit order (appends lock the chain head). */
  @PrimaryGeneratedColumn({ type: 'bigint' })
  seq!: string;

  @Column({ name: 'event_id', type: 'text' })
  eventId!: string;

  @Column({ type: 'text' })
  topic!: string;

  @Column({ type: 'text' })
  type!: string;

  @Column({ type: 'text' })
  stream!: string;

  @Column({ type: 'text', nullable: true })
  tool!: string | null;

  @Column({ type: 'text', nullable: true })
  version!: string | null;

  @Column({ type: 'text' })
  principal!: string;

  @Column({ type: 'text', nullable: true })
  outcome!: string | null;

  @Column({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt!: Date;

  @Column({ name: 'recorded_at', type: 'timestamptz', default: () => 'now()' })
  recordedAt!: Date;

  /** JSON text: holds U+0000 and lone surrogate escapes, which jsonb refuses. */
  @Column({ type: 'text' })
  payload!: string;

  @Column({ name: 'prev_hash', type: 'text' })
  prevHash!: string;

  @Column({ type: 'text' })
  hash!: string;
}
