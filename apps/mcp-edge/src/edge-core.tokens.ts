/** The bus as the edge sees it: wrapped by the consumer monitor, which reports on the catalog consumer. */
export const EDGE_BUS = Symbol('EdgeBus');
/** The consumer group of this edge's replica: one per instance, so every edge reads the whole catalog. */
export const REPLICA_GROUP = Symbol('ReplicaGroup');
