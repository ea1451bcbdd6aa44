import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Where the trail's consumers stand in each log, with the event recorded last. */
@Entity({ schema: 'audit', name: 'positions' })
export class AuditPositionEntity {
  @PrimaryColumn({ type: 'text' })
  topic!: string;

  @PrimaryColumn({ type: 'integer' })
  partition!: number;

  @Column({ name: 'next_offset', type: 'bigint' })
  nextOffset!: string;

  @Column({ name: 'last_event_id', type: 'text', nullable: true })
  lastEventId!: string | null;
}
