import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { CatalogEntry } from '@estate/events';

/** A catalog entry without its versions (they are rows of tool_versions); found by name or by the server that offers it. */
export type CatalogToolHead = Omit<CatalogEntry, 'versions'>;

@Entity({ schema: 'discovery', name: 'tools' })
@Index('tools_server', ['server'])
export class CatalogToolEntity {
  @PrimaryColumn({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  server!: string;

  /** json, not jsonb: the published contract reaches agents with its key order. */
  @Column({ type: 'json' })
  head!: CatalogToolHead;
}
