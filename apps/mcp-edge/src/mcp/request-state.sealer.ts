import { createHmac } from 'node:crypto';
import { openRequestState, sealRequestState, type OpenedState, type RequestStateBinding } from '@estate/protocol';
import { MemorySpentStates, type SpentStates } from './spent-states.port';
import { WireError } from './wire-error';

/** How long a client should wait before resending a retry the edge could not record. */
export const SPEND_RETRY_AFTER_MS = 1000;

/**
 * Seals and opens the `requestState` of input_required answers with HMAC-SHA-256 under the key
 * from ESTATE_REQUEST_STATE_KEY. Every edge copy given the same key accepts the others' states, so
 * a retry may land on any copy. The codec (libs/protocol) decides what is checked; this supplies
 * the MAC and the clock.
 */
export class RequestStateSealer {
  private readonly mac: (text: string) => string;

  constructor(
    key: string,
    private readonly ttlMs: number,
    private readonly clock: () => number = Date.now,
    /** Ids of states already acted on: this process's memory unless a shared store is given. */
    private readonly spent: SpentStates = new MemorySpentStates(clock),
  ) {
    this.mac = (text) => createHmac('sha256', key).update(text).digest('base64url');
  }

  /** `ttlMs` overrides the sealer's lifetime (a parked call's state lives only as long as the call waits). */
  seal<T>(binding: RequestStateBinding, data: T, ttlMs = this.ttlMs): string {
    return sealRequestState({ ...binding, expiresAt: this.clock() + ttlMs, data }, this.mac);
  }

  open<T>(presented: string, binding: RequestStateBinding): OpenedState<T> {
    return openRequestState<T>(presented, this.mac, binding, this.clock());
  }

  /**
   * Marks a state's unique id (the random `nonce` sealed in it) as used; false when it already
   * was, on this copy or, with a shared store, any copy. A confirmed state must not run a
   * destructive call twice when replayed. The record is kept a full lifetime from now, which is
   * never shorter than what is left of the state's own. When the store cannot answer, the call is
   * refused with a retryable error and the state stays unspent: failing open would let a replay run.
   */
  async spendOnce(nonce: string): Promise<boolean> {
    try {
      return await this.spent.spendOnce(nonce, this.clock() + this.ttlMs);
    } catch {
      // The store logged why; the client learns only that it may retry.
      throw new WireError(
        -32603,
        `The confirmation could not be recorded as used (the edge's confirmation store is unavailable); the tool was not called. Send the same request again in ${SPEND_RETRY_AFTER_MS} ms.`,
        { retryable: true, 'io.estate/retryAfterMs': SPEND_RETRY_AFTER_MS },
      );
    }
  }
}
