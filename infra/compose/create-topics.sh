#!/bin/sh
# Creates Estate's Kafka topics with their declared configs, once, before any service starts
# (docker-compose.yml runs it as the `kafka-topics` one-shot in the apache/kafka image).
# Re-running it is harmless: existing topics keep their data and get the declared configs again.
#
#   KAFKA_BOOTSTRAP      broker to talk to (kafka:9092)
#   ESTATE_TOPIC_PREFIX  the services' topic prefix (empty)
#   KAFKA_BIN            where kafka-topics.sh and kafka-configs.sh live (/opt/kafka/bin)
set -eu

BOOTSTRAP="${KAFKA_BOOTSTRAP:-kafka:9092}"
PREFIX="${ESTATE_TOPIC_PREFIX:-}"
BIN="${KAFKA_BIN:-/opt/kafka/bin}"
# estate.calls keeps a week of calls; the audit trail in PostgreSQL is the long-term record.
CALLS_RETENTION_MS=604800000

# topic <name> <configs, comma-separated>
topic() {
  name="$PREFIX$1"
  "$BIN/kafka-topics.sh" --bootstrap-server "$BOOTSTRAP" --create --if-not-exists \
    --topic "$name" --partitions 1 --replication-factor 1
  # Also for a topic that existed before (made by a service or by an older version of this file).
  "$BIN/kafka-configs.sh" --bootstrap-server "$BOOTSTRAP" --alter \
    --entity-type topics --entity-name "$name" --add-config "$2"
}

# The registry's events are the log every projection can be rebuilt from: never expire them.
topic estate.registry.events 'cleanup.policy=delete,retention.ms=-1,retention.bytes=-1'
# Discovery publishes each tool's current state by key: keep the latest per tool.
topic estate.catalog 'cleanup.policy=compact'
topic estate.calls "cleanup.policy=delete,retention.ms=$CALLS_RETENTION_MS"

echo "topics ready (prefix '$PREFIX')"
