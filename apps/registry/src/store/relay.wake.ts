/** How often the timer looks whether a pass is due (a standby asks for the lock this often). */
export const TICK_MS = 250;
/** An idle leader's pass without a wake-up: the safety net, and the log check's cadence. */
export const IDLE_PASS_MS = 5000;
/** Retries while committed events wait behind an older transaction still running: soon, then less often. */
const HELD_BACK_RETRY_MS = [2, 5, 10, 20, 40, 80, 160, 250];

/**
 * When the relay runs a pass. A leader is woken by the append NOTIFY (the relay's own LISTEN),
 * so it does not poll: its timer only runs a pass after a failure, after IDLE_PASS_MS without
 * one, or while it is not the leader (a standby asks for the lock on every tick). Events that
 * committed but are not readable yet (an older transaction still runs, so they are not below
 * the snapshot's xmin) get quick retries: no NOTIFY comes when that other transaction ends.
 */
export class RelayWake {
  private timer?: NodeJS.Timeout;
  private retryTimer?: NodeJS.Timeout;
  private retries = 0;
  private lastPass = 0;

  constructor(private readonly pass: () => void, private readonly due: () => 'always' | 'idle') {}

  start(): void {
    this.timer = setInterval(() => this.tick(), TICK_MS);
  }

  stop(): void {
    clearInterval(this.timer);
    clearTimeout(this.retryTimer);
  }

  /** A pass started: the idle clock starts over. */
  passed(): void {
    this.lastPass = Date.now();
  }

  /** The last pass found committed events it could not read yet: look again shortly. */
  heldBack(): void {
    if (this.retryTimer) return;
    const ms = HELD_BACK_RETRY_MS[Math.min(this.retries, HELD_BACK_RETRY_MS.length - 1)];
    this.retries += 1;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.pass();
    }, ms);
  }

  /** The last pass read what was there: the next wait starts short again. */
  caughtUp(): void {
    this.retries = 0;
  }

  private tick(): void {
    if (this.due() === 'always' || Date.now() - this.lastPass >= IDLE_PASS_MS) this.pass();
  }
}
