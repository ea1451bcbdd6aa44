/** The requests an upstream may put to the agent during a call, as the 2026-07-28 revision carries them. */
export type UpstreamInputMethod = 'elicitation/create' | 'sampling/createMessage';

export interface UpstreamAsk {
  readonly method: UpstreamInputMethod;
  readonly params: Record<string, unknown>;
}

/** What the agent's request is answered with next: the call's end, or the questions it waits on. */
export type ExchangeTurn<T> =
  | { readonly kind: 'done'; readonly result: T }
  | { readonly kind: 'failed'; readonly error: unknown }
  | { readonly kind: 'asks'; readonly asks: ReadonlyMap<string, UpstreamAsk> };

interface PendingAsk extends UpstreamAsk {
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
}

type Outcome<T> = { ok: true; result: T } | { ok: false; error: unknown };

/** Waits one turn of the event loop: the asks of one round arrive within microtasks of each other. */
const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Between one upstream call that keeps running and the agent's requests that come and go: the
 * upstream's questions queue here under keys of the edge's own, and whichever agent request is
 * being served takes the next turn (the call's result, or the questions it is waiting on). The
 * call's promise lives here, so it outlives the request that started it.
 */
export class UpstreamInputExchange<T> {
  /** True while the agent holds the questions and the call waits for its retry (set by whoever parks it). */
  parked = false;
  private readonly pending = new Map<string, PendingAsk>();
  private outcome?: Outcome<T>;
  /** Set once no agent will answer any more (withdrawn, abandoned): later questions fail at once. */
  private closed?: Error;
  private wake?: () => void;
  private asked = 0;

  constructor(private readonly gather: () => Promise<void> = nextTick) {}

  /** Starts the call; its end (or failure) becomes the exchange's last turn. */
  start(run: () => Promise<T>): this {
    run().then((result) => this.settle({ ok: true, result }), (error: unknown) => this.settle({ ok: false, error }));
    return this;
  }

  /** Queues an upstream question; settles when the agent answers it or it is withdrawn. */
  ask(request: UpstreamAsk): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      // An upstream that asks again after the agent is gone (a retried attempt, say) must not wait for nobody.
      if (this.closed) return reject(this.closed);
      this.asked += 1;
      const key = `${request.method === 'sampling/createMessage' ? 'sampling' : 'elicitation'}-${this.asked}`;
      this.pending.set(key, { ...request, resolve, reject });
      this.poke();
    });
  }

  /** Ends the agent's side now with `error` (the call itself runs on to its end). */
  abandon(error: unknown): void {
    this.closed ??= error instanceof Error ? error : new Error('the agent was already answered');
    if (!this.outcome) this.settle({ ok: false, error });
  }

  /**
   * The next thing to tell the agent: the outcome once the call ended, else the questions waiting
   * for it (gathered for one tick, so that one round's questions go out together).
   */
  async turn(): Promise<ExchangeTurn<T>> {
    for (;;) {
      if (this.outcome) return this.outcome.ok ? { kind: 'done', result: this.outcome.result } : { kind: 'failed', error: this.outcome.error };
      if (this.pending.size > 0) {
        await this.gather();
        if (this.outcome) continue;
        return { kind: 'asks', asks: this.waiting() };
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  /** The questions not answered yet. */
  waiting(): ReadonlyMap<string, UpstreamAsk> {
    return new Map([...this.pending].map(([key, ask]) => [key, { method: ask.method, params: ask.params }]));
  }

  /** Hands the agent's answer to the upstream; false when nothing waits under `key`. */
  answer(key: string, result: Record<string, unknown>): boolean {
    const ask = this.pending.get(key);
    if (!ask) return false;
    this.pending.delete(key);
    ask.resolve(result);
    return true;
  }

  /** Withdraws every waiting question (the agent did not come back in time): the upstream hears `error`. */
  withdraw(error: Error): void {
    this.closed ??= error;
    const asks = [...this.pending.values()];
    this.pending.clear();
    for (const ask of asks) ask.reject(error);
  }

  private settle(outcome: Outcome<T>): void {
    this.outcome ??= outcome;
    this.poke();
  }

  private poke(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
