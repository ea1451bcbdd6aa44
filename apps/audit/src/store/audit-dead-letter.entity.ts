import { Entity } from 'typeorm';
import { DeadLetterColumns } from '@estate/platform';

/** Messages the recorder could not record, kept as received with the reason; each counts as handled. */
@Entity({ schema: 'audit', name: 'dead_letters' })
export class AuditDeadLetterEntity extends DeadLetterColumns {}
