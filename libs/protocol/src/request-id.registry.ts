import type { JsonRpcId } from './json-rpc.types';

/** Default number of ids a session remembers for the no-reuse rule. */
export const DEFAULT_MAX_TRACKED_IDS = 10_000;

/**
 * Remembers the request ids one peer has used. Memory is bounded: past `capacity` ids the
 * oldest is forgotten, so a reuse is caught only within the last `capacity` requests. Each
 * entry holds the id as sent, so string ids are bounded by the transport's message-size
 * limit, not here. `1` and `"1"` are different ids and are tracked apart.
 */
export class RequestIdRegistry {
  readonly #seen = new Set<string>();

  constructor(readonly capacity: number = DEFAULT_MAX_TRACKED_IDS) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new RangeError('RequestIdRegistry: capacity must be a positive integer');
    }
  }

  get size(): number {
    return this.#seen.size;
  }

  has(id: JsonRpcId): boolean {
    return this.#seen.has(keyOf(id));
  }

  /** Records `id`; returns false when it had already been recorded. */
  add(id: JsonRpcId): boolean {
    const key = keyOf(id);
    if (this.#seen.has(key)) return false;
    this.#seen.add(key);
    if (this.#seen.size > this.capacity) this.#forgetOldest();
    return true;
  }

  /** Forgets `id`, as if it had never been recorded. */
  delete(id: JsonRpcId): void {
    this.#seen.delete(keyOf(id));
  }

  #forgetOldest(): void {
    // A Set iterates in insertion order, so its first key is the oldest.
    const oldest = this.#seen.values().next();
    if (oldest.done !== true) this.#seen.delete(oldest.value);
  }
}

function keyOf(id: JsonRpcId): string {
  return typeof id === 'number' ? `n:${id}` : `s:${id}`;
}
