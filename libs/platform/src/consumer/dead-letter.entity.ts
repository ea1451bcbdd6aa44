import { Column, PrimaryGeneratedColumn, Unique } from 'typeorm';

/**
 * The columns of every consuming service's dead-letter table (`deadLetterTableSql`). A table
 * lives in one schema, so each service declares its own entity over these columns, e.g.
 * `@Entity({ schema: 'audit', name: 'dead_letters' }) class AuditDeadLetterEntity extends DeadLetterColumns {}`.
 */
@Unique('dead_letters_position_unique', ['topic', 'partition', 'offset'])
export abstract class DeadLetterColumns {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ type: 'text' })
  topic!: string;

  @Column({ type: 'integer' })
  partition!: number;

  @Column({ type: 'bigint' })
  offset!: string;

  /** Bytes as received: a key or value may hold what text cannot. */
  @Column({ type: 'bytea', nullable: true })
  key!: Buffer | null;

  @Column({ type: 'bytea', nullable: true })
  value!: Buffer | null;

  @Column({ type: 'text' })
  reason!: string;

  @Column({ name: 'failed_at', type: 'timestamptz', default: () => 'now()' })
  failedAt!: Date;
}
