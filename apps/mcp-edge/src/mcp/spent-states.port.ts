/**
 * Where the edge remembers which sealed confirmation states were already acted on. A confirmed
 * 2026-07-28 retry must run its destructive call once, whichever copy of the edge it reaches.
 */
export interface SpentStates {
  /**
   * Records `id` as spent until `expiresAt` (epoch ms). True for the first caller; false when the
   * id was already spent. Throws when it cannot tell: the caller must then refuse, never run.
   */
  spendOnce(id: string, expiresAt: number): Promise<boolean>;
  /** True when every copy sharing this store sees the same spent ids (not only this process). */
  readonly shared: boolean;
  close(): Promise<void>;
}

/** This process's memory: a replay to another copy is only bounded by the state's lifetime. */
export class MemorySpentStates implements SpentStates {
  readonly shared = false;
  private readonly spent = new Map<string, number>();

  constructor(private readonly clock: () => number = Date.now) {}

  async spendOnce(id: string, expiresAt: number): Promise<boolean> {
    const now = this.clock();
    for (const [key, until] of this.spent) if (until <= now) this.spent.delete(key);
    if (this.spent.has(id)) return false;
    this.spent.set(id, expiresAt);
    return true;
  }

  async close(): Promise<void> {
    this.spent.clear();
  }
}
