import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An event the bus refused for its size, set aside so the events behind it go on. */
@Entity({ schema: 'registry', name: 'relay_parked' })
export class RelayParkedEntity {
  @PrimaryColumn({ type: 'text' })
  relay!: string;

  @PrimaryColumn({ name: 'event_id', type: 'uuid' })
  eventId!: string;

  @Column({ name: 'stream_id', type: 'text' })
  streamId!: string;

  @Column({ name: 'stream_version', type: 'integer' })
  streamVersion!: number;

  @Column({ type: 'integer' })
  bytes!: number;

  @Column({ type: 'text' })
  reason!: string;

  @Column({ name: 'parked_at', type: 'timestamptz', default: () => 'now()' })
  parkedAt!: Date;
}
