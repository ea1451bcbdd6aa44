import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The chain's one row, locked by every append: appends from any number of instances form one
 * chain. The migration inserts that row (data, which no entity declares).
 */
@Entity({ schema: 'audit', name: 'chain_head' })
// The name PostgreSQL gave the migration's column CHECK, so the schema diff matches it.
@Check('chain_head_id_check', '"id" = 1')
export class ChainHeadEntity {
  @PrimaryColumn({ type: 'smallint' })
  id!: number;

  @Column({ name: 'last_seq', type: 'bigint' })
  lastSeq!: string;

  @Column({ type: 'text' })
  hash!: string;
}
