import { Column, PrimaryColumn } from 'typeorm';

/**
 * The columns of a consumer that keeps its own position beside its state (discovery's
 * checkpoints, audit's positions): the next offset per partition and the event applied last, so a
 * restart can check the log still holds that event there (`judgePosition`). A table lives in one
 * schema, so each service declares its entity over these columns.
 */
export abstract class ConsumerPositionColumns {
  @PrimaryColumn({ type: 'text' })
  topic!: string;

  @PrimaryColumn({ type: 'integer' })
  partition!: number;

  @Column({ name: 'next_offset', type: 'bigint' })
  nextOffset!: string;

  @Column({ name: 'last_event_id', type: 'text', nullable: true })
  lastEventId!: string | null;
}
