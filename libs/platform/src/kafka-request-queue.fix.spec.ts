import { fixKafkaRequestQueue } from './kafka-request-queue.fix';

/** kafkajs's own RequestQueue (the class every broker connection uses), after the fix. */
interface Queue {
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  push(request: { entry: { correlationId: number; resolve: () => void; reject: () => void }; expectResponse: boolean; sendRequest: () => void }): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer; size: number }): void;
  maybeThrottle(ms: number): void;
  destroy(): void;
}

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A request to the fake broker: `sent` records when kafkajs let it go out. */
const request = (correlationId: number, sent: number[]) => ({
  entry: { correlationId, resolve: () => undefined, reject: () => undefined },
  expectResponse: true,
  sendRequest: () => sent.push(correlationId),
});

function newQueue(): Queue {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const RequestQueue = require('kafkajs/src/network/requestQueue/index.js') as new (options: object) => Queue;
  return new RequestQueue({ maxInFlightRequests: 1, requestTimeout: 30_000, enforceRequestTimeout: false, clientId: 'spec', broker: 'spec:9092', logger: quiet });
}

describe('the kafkajs request queue fix', () => {
  beforeAll(() => expect(fixKafkaRequestQueue()).toBe(true));

  it('leaves no timer running once nothing waits (kafkajs 2.2.4 re-armed one every millisecond)', async () => {
    const queue = newQueue();
    const sent: number[] = [];
    queue.push(request(1, sent));
    queue.push(request(2, sent)); // waits: one request in flight at most
    expect(sent).toEqual([1]);
    queue.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    expect(sent).toEqual([1, 2]);
    queue.fulfillRequest({ correlationId: 2, payload: Buffer.alloc(0), size: 0 });
    await pause(40);
    expect(queue.throttleCheckTimeoutId).toBeNull();
    await pause(20);
    expect(queue.throttleCheckTimeoutId).toBeNull();
    queue.destroy();
  });

  it('still sends a request held back by broker throttling once the throttle ends', async () => {
    const queue = newQueue();
    const sent: number[] = [];
    queue.maybeThrottle(30);
    queue.push(request(7, sent));
    expect(sent).toEqual([]);
    await pause(80);
    expect(sent).toEqual([7]);
    queue.fulfillRequest({ correlationId: 7, payload: Buffer.alloc(0), size: 0 });
    await pause(20);
    expect(queue.throttleCheckTimeoutId).toBeNull();
    queue.destroy();
  });

  it('is applied once however often it is asked for', () => {
    expect(fixKafkaRequestQueue()).toBe(true);
    expect(fixKafkaRequestQueue()).toBe(true);
  });
});
