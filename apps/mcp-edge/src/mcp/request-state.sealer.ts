import { createHmac } from 'node:crypto';
import { openRequestState, sealRequestState, type OpenedState, type RequestStateBinding } from '@estate/protocol';

/**
 * Seals and opens the `requestState` of input_required answers with HMAC-SHA-256 under the key
 * from ESTATE_REQUEST_STATE_KEY. Every edge copy given the same key accepts the others' states, so
 * a retry may land on any copy. The codec (libs/protocol) decides what is checked; this supplies
 * the MAC and the clock.
 */
export class RequestStateSealer {
  private readonly mac: (text: string) => string;
  /** Nonces of states already acted on, until they could have expired anyway. */
  private readonly spent = new Map<string, number>();

  constructor(key: string, private readonly ttlMs: number, private readonly clock: () => number = Date.now) {
    this.mac = (text) => createHmac('sha256', key).update(text).digest('base64url');
  }

  seal<T>(binding: RequestStateBinding, data: T): string {
    return sealRequestState({ ...binding, expiresAt: this.clock() + this.ttlMs, data }, this.mac);
  }

  open<T>(presented: string, binding: RequestStateBinding): OpenedState<T> {
    return openRequestState<T>(presented, this.mac, binding, this.clock());
  }

  /**
   * Marks a state's nonce as used; false when it already was. A confirmed state must not run a
   * destructive call twice when replayed. This copy's memory only: a replay to another copy is
   * bounded by the state's lifetime (ESTATE_CONFIRM_TTL_SECONDS).
   */
  spendOnce(nonce: string): boolean {
    const now = this.clock();
    for (const [key, until] of this.spent) if (until <= now) this.spent.delete(key);
    if (this.spent.has(nonce)) return false;
    this.spent.set(nonce, now + this.ttlMs);
    return true;
  }
}
