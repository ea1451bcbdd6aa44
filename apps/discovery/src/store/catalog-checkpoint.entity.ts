import { Entity } from 'typeorm';
import { ConsumerPositionColumns } from '@estate/platform';

/** The projection's next offset per partition, committed in the transaction that applied the event before it. */
@Entity({ schema: 'discovery', name: 'checkpoints' })
export class CatalogCheckpointEntity extends ConsumerPositionColumns {}
