import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The consumption ledger, per partition: `next_offset - first_offset - handled` counts the
 * messages passed over without a trace.
 */
@Entity({ schema: 'audit', name: 'consumed' })
export class ConsumedEntity {
  @PrimaryColumn({ type: 'text' })
  topic!: string;

  @PrimaryColumn({ type: 'integer' })
  partition!: number;

  @Column({ name: 'first_offset', type: 'bigint' })
  firstOffset!: string;

  @Column({ name: 'next_offset', type: 'bigint' })
  nextOffset!: string;

  @Column({ type: 'bigint' })
  handled!: string;
}
