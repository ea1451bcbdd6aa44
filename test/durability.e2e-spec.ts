import { describeRestartFlow } from './support/restart.flow';

/** `npm start` with no Kafka: embedded PostgreSQL and the durable log in it. */
describeRestartFlow({
  title: 'the embedded estate across Ctrl-C and SIGKILL (npm start as a real process)',
  env: () => ({}),
  busLine: 'durable log in PostgreSQL (schema bus)',
});
