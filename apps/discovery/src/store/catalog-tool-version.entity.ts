import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { CatalogVersion } from '@estate/events';
import { CatalogToolEntity } from './catalog-tool.entity';

/**
 * One version of a tool's catalog entry: a publish writes one of these rather than the whole
 * entry, which holds every version. Deleting a tool's row deletes its versions.
 */
@Entity({ schema: 'discovery', name: 'tool_versions' })
export class CatalogToolVersionEntity {
  @PrimaryColumn({ type: 'text' })
  tool!: string;

  @PrimaryColumn({ type: 'text' })
  version!: string;

  /** json, not jsonb: the text is published as stored, key order included. */
  @Column({ type: 'json' })
  body!: CatalogVersion;

  @ManyToOne(() => CatalogToolEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tool', foreignKeyConstraintName: 'tool_versions_tool_fk' })
  owner?: CatalogToolEntity;
}
