import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The projection's next offset per partition, committed in the transaction that applied the event before it. */
@Entity({ schema: 'discovery', name: 'checkpoints' })
export class CatalogCheckpointEntity {
  @PrimaryColumn({ type: 'text' })
  topic!: string;

  @PrimaryColumn({ type: 'integer' })
  partition!: number;

  @Column({ name: 'next_offset', type: 'bigint' })
  nextOffset!: string;

  /** The event applied last: a restart checks the log still holds it there. */
  @Column({ name: 'last_event_id', type: 'text', nullable: true })
  lastEventId!: string | null;
}
