import { describeRestartFlow } from './support/restart.flow';
import { kafkaBrokers, randomTopicPrefix } from './support/infra';

/**
 * `npm start` on the shared broker (which is not restarted here): embedded PostgreSQL, the bus
 * on Kafka, topics and consumer groups of this suite's own, kept across its restarts so that the
 * consumers resume from the positions they stored.
 */
describeRestartFlow({
  title: 'npm start on Kafka across Ctrl-C and SIGKILL (a real process, the shared broker)',
  env: () => {
    const prefix = randomTopicPrefix();
    return {
      KAFKA_BROKERS: kafkaBrokers().join(','), ESTATE_TOPIC_PREFIX: prefix,
      ESTATE_DISCOVERY_GROUP: `${prefix}discovery`, ESTATE_AUDIT_GROUP: `${prefix}audit`, ESTATE_EDGE_GROUP: `${prefix}edge`,
    };
  },
  busLine: 'Kafka (KAFKA_BROKERS)',
});
