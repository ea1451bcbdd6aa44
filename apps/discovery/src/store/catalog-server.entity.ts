import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ServerRegisteredData } from '@estate/events';

/** A registered upstream server as the catalog shows it. */
@Entity({ schema: 'discovery', name: 'servers' })
export class CatalogServerEntity {
  @PrimaryColumn({ type: 'text' })
  name!: string;

  /** json, not jsonb: the registration keeps its key order. */
  @Column({ type: 'json' })
  data!: ServerRegisteredData;
}
