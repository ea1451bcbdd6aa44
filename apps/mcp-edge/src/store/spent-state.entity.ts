import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A sealed confirmation state some edge copy has acted on. The primary key is what makes a replay
 * to any copy lose: the first insert of an id wins, every later one finds it taken.
 */
@Entity({ schema: 'edge', name: 'spent_states' })
@Index('spent_states_expires_at', ['expiresAt'])
export class SpentStateEntity {
  /** The random id sealed inside the state (its `nonce`). */
  @PrimaryColumn({ type: 'text' })
  id!: string;

  /** After this the state is refused as expired anyway, so the row may go. */
  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'spent_at', type: 'timestamptz', default: () => 'now()' })
  spentAt!: Date;
}
