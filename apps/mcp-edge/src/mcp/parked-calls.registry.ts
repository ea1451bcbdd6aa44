import { randomUUID } from 'node:crypto';

/** A call waiting for its agent to come back with answers, and whom it may be handed to. */
export interface ParkedCall<E> {
  /** The principal key the call was started by; only a retry sealed for it can find the call. */
  readonly principal: string;
  readonly exchange: E;
}

/**
 * The calls of this edge copy that wait for an agent's answers, each under a random id for a
 * limited time. Taking a call removes it, so one sealed state resumes a call once. When the time
 * is up the call is dropped and `expire` is told (it withdraws the upstream's questions).
 */
export class ParkedCalls<E> {
  private readonly parked = new Map<string, { call: ParkedCall<E>; timer: NodeJS.Timeout }>();

  constructor(
    readonly ttlMs: number,
    private readonly expire: (call: ParkedCall<E>) => void,
    private readonly newId: () => string = randomUUID,
  ) {}

  park(call: ParkedCall<E>): string {
    const id = this.newId();
    const timer = setTimeout(() => {
      this.parked.delete(id);
      this.expire(call);
    }, this.ttlMs);
    // A call waiting for an agent that never returns must not keep the process alive.
    timer.unref();
    this.parked.set(id, { call, timer });
    return id;
  }

  /** The call parked under `id` for `principal`, left in place (to check a retry before acting on it). */
  peek(id: string, principal: string): ParkedCall<E> | undefined {
    const entry = this.parked.get(id);
    return entry && entry.call.principal === principal ? entry.call : undefined;
  }

  /** Removes and returns the call: whoever takes it is the only one to resume it. */
  take(id: string, principal: string): ParkedCall<E> | undefined {
    const call = this.peek(id, principal);
    if (!call) return undefined;
    clearTimeout(this.parked.get(id)?.timer);
    this.parked.delete(id);
    return call;
  }

  get size(): number {
    return this.parked.size;
  }

  /** Expires every parked call now (the edge is stopping). */
  closeAll(): void {
    const entries = [...this.parked.values()];
    this.parked.clear();
    for (const { call, timer } of entries) {
      clearTimeout(timer);
      this.expire(call);
    }
  }
}
