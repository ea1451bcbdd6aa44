import { randomUUID } from 'node:crypto';

/**
 * A UUID version 7 (RFC 9562): the time in milliseconds in its first 48 bits, the rest random (74
 * bits, taken from a version 4 UUID). Ids made later sort after ids made in an earlier
 * millisecond, so an index over them grows at its end instead of touching a random page per row:
 * the audit trail's unique event id costs PostgreSQL less per call record.
 */
export function timeOrderedEventId(now: number = Date.now()): string {
  const time = now.toString(16).padStart(12, '0');
  const random = randomUUID(); // xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx, V the variant 8 to b
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(15)}`;
}
