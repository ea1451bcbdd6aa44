import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The last applied position of each registry stream: applying an event twice is a no-op. */
@Entity({ schema: 'discovery', name: 'streams' })
export class StreamPositionEntity {
  @PrimaryColumn({ name: 'stream_id', type: 'text' })
  streamId!: string;

  @Column({ type: 'integer' })
  position!: number;
}
