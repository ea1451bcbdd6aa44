import { Entity } from 'typeorm';
import { ConsumerPositionColumns } from '@estate/platform';

/** Where the trail's consumers stand in each log, with the event recorded last. */
@Entity({ schema: 'audit', name: 'positions' })
export class AuditPositionEntity extends ConsumerPositionColumns {}
