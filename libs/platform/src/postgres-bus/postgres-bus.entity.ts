import { Column, Entity, Generated, Index, PrimaryColumn } from 'typeorm';

/** A topic of the embedded bus; `next_offset` is also the row every publisher of the topic locks. */
@Entity({ schema: 'bus', name: 'topics' })
export class BusTopicEntity {
  @PrimaryColumn({ type: 'text' })
  name!: string;

  /** Tells a recreated topic from the one it replaced. TypeORM reads gen_random_uuid() as a generated uuid. */
  @Column({ type: 'uuid' })
  @Generated('uuid')
  id!: string;

  @Column({ type: 'boolean', default: false })
  compacted!: boolean;

  @Column({ name: 'start_offset', type: 'bigint', default: 0 })
  startOffset!: string;

  @Column({ name: 'next_offset', type: 'bigint', default: 0 })
  nextOffset!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}

/** One message of the log; key, value and headers are bytes, as in Kafka. */
@Entity({ schema: 'bus', name: 'messages' })
@Index('messages_topic_key', ['topic', 'key', 'offset'])
export class BusMessageEntity {
  @PrimaryColumn({ type: 'text' })
  topic!: string;

  @PrimaryColumn({ type: 'bigint' })
  offset!: string;

  @Column({ type: 'bytea', nullable: true })
  key!: Buffer | null;

  @Column({ type: 'bytea', nullable: true })
  value!: Buffer | null;

  @Column({ type: 'bytea', nullable: true })
  headers!: Buffer | null;

  @Column({ name: 'published_at', type: 'timestamptz', default: () => 'now()' })
  publishedAt!: Date;

  // No foreign key to the topic's row (LighterBusMessages1764700000000): a send's own UPDATE of
  // that row proves it exists, and the key's trigger cost a lookup per message.
}

/** Where a consumer group stands in a topic; groups idle for a week are forgotten, as Kafka does. */
@Entity({ schema: 'bus', name: 'group_offsets' })
export class BusGroupOffsetEntity {
  @PrimaryColumn({ name: 'group_id', type: 'text' })
  groupId!: string;

  @PrimaryColumn({ type: 'text' })
  topic!: string;

  @Column({ name: 'next_offset', type: 'bigint' })
  nextOffset!: string;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}

export const BUS_ENTITIES = [BusTopicEntity, BusMessageEntity, BusGroupOffsetEntity];
