import { KafkaJSConnectionError, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError } from 'kafkajs';
import { neverReached } from './kafka-event-bus';

// What kafkajs throws when KAFKA_BROKERS names no broker (its retrier wraps the last connection
// error), against a broker that answered with an error: only the first becomes "no Kafka broker
// answered at KAFKA_BROKERS=…" at start (checked by hand: a start against 127.0.0.1:1 ends so).
describe('a broker never reached', () => {
  it('is told apart from a broker that answered, with the connection error as the reason', () => {
    const refused = new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:1');
    expect(neverReached(new KafkaJSNumberOfRetriesExceeded(refused, { retryCount: 8, retryTime: 5000 }))).toBe('Connection error: connect ECONNREFUSED 127.0.0.1:1');
    expect(neverReached(new KafkaJSConnectionError('Connection timeout'))).toBe('Connection timeout');
    expect(neverReached(new KafkaJSNumberOfRetriesExceeded(new KafkaJSProtocolError('Topic authorization failed'), { retryCount: 8, retryTime: 5000 }))).toBeUndefined();
    expect(neverReached(new Error('Connection error, but not from kafkajs'))).toBeUndefined();
  });
});
