import { Entity } from 'typeorm';
import { DeadLetterColumns } from '@estate/platform';

/** Registry messages the projection could not apply, kept as received with the reason. */
@Entity({ schema: 'discovery', name: 'dead_letters' })
export class CatalogDeadLetterEntity extends DeadLetterColumns {}
