import { Column, Entity, PrimaryColumn } from 'typeorm';
import { XID8 } from '@estate/platform';

/** How far each relay has published: the last (tx_id, position) sent and what the log should then hold. */
@Entity({ schema: 'registry', name: 'relay_checkpoint' })
export class RelayCheckpointEntity {
  @PrimaryColumn({ type: 'text' })
  relay!: string;

  /** xid8: compared with the events' tx_id as a pair with the position. */
  @Column({ name: 'tx_id', type: XID8 })
  txId!: string;

  @Column({ type: 'bigint' })
  position!: string;

  /** The topic's message count after the relay's last send; a log holding fewer lost messages. */
  @Column({ name: 'log_high', type: 'bigint', default: 0 })
  logHigh!: string;

  @Column({ name: 'last_event_id', type: 'uuid', nullable: true })
  lastEventId!: string | null;
}
