/**
 * kafkajs 2.2.4 re-arms a timer on every broker connection whether or not a request waits: with
 * nothing throttled its delay comes out negative (Node runs it after 1 ms), and the check it runs
 * re-arms it again (tulios/kafkajs#1556, #1704; the fix in #1667 is unreleased). Every connection
 * of every estate process therefore woke its event loop about a thousand times a second for
 * nothing: an idle edge spent 45 ms of CPU per second on it, and the wake-ups landed inside the
 * requests it served. Patched here, once per process, where kafkajs is loaded.
 */

/** The parts of kafkajs's RequestQueue the fix reads and replaces. */
interface RequestQueueShape {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs's own interval for a queue that waits on in-flight requests rather than a throttle. */
const CHECK_PENDING_MS = 10;
const FIXED = Symbol.for('estate.kafkajs.requestQueueFixed');

/**
 * Schedules a check only while a request waits, as upstream meant: a new request that cannot go
 * at once schedules its own, and a finished in-flight request runs the check directly.
 */
function scheduleCheckPendingRequests(this: RequestQueueShape): void {
  if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
  const untilUnthrottled = this.throttledUntil - Date.now();
  this.throttleCheckTimeoutId = setTimeout(() => {
    this.throttleCheckTimeoutId = null;
    this.checkPendingRequests();
  }, untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_MS);
}

/**
 * Replaces the method on kafkajs's class. Returns false (and changes nothing) when the installed
 * kafkajs no longer has the shape this fix was written for; the bus then works as kafkajs ships.
 */
export function fixKafkaRequestQueue(): boolean {
  let queueClass: { prototype: Partial<RequestQueueShape> & { [FIXED]?: true } } | undefined;
  try {
    // Internal module: kafkajs exports no way to reach the class its connections use.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    queueClass = require('kafkajs/src/network/requestQueue/index.js') as typeof queueClass;
  } catch {
    return false;
  }
  const proto = queueClass?.prototype;
  if (!proto || typeof proto.scheduleCheckPendingRequests !== 'function' || typeof proto.checkPendingRequests !== 'function') return false;
  if (proto[FIXED]) return true;
  proto.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
  proto[FIXED] = true;
  return true;
}
