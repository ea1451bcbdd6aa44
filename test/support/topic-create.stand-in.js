// Stands in for kafka-topics.sh --create --if-not-exists in test/compose.e2e-spec.ts: Kafka's
// TopicCommand is not among the jars infra/kafka fetches. It creates a bare topic, nothing more;
// the configs under test go through Kafka's real ConfigCommand.
const { Kafka, logLevel } = require('kafkajs');

const args = process.argv.slice(2);
const value = (name) => args[args.indexOf(name) + 1];

async function main() {
  if (!args.includes('--create')) throw new Error(`stand-in only creates topics: ${args.join(' ')}`);
  const kafka = new Kafka({ clientId: 'topic-stand-in', brokers: value('--bootstrap-server').split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topic = value('--topic');
    if ((await admin.listTopics()).includes(topic)) return;
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: Number(value('--partitions')), replicationFactor: Number(value('--replication-factor')) }] });
    process.stdout.write(`Created topic ${topic}.\n`);
  } finally {
    await admin.disconnect();
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
