/**
 * How an upstream call learns that its caller cancelled it. A session's tools/call hands in the
 * fast path's own (sessions/session.fast-path.ts), which makes no AbortController unless its
 * signal is read: a controller, a listener on its signal and the listener's removal were about
 * 5 % of the edge's CPU per call. Any other caller's AbortSignal is wrapped (signalCancellation).
 */
export interface CallCancellation {
  readonly aborted: boolean;
  /** The abort signal, made on first read when it was not yet; read for its reason, or by the SDK client. */
  readonly signal: AbortSignal;
  /** Calls `listener` once when the call is cancelled; the function returned stops listening. */
  onAbort(listener: () => void): () => void;
}

class SignalCancellation implements CallCancellation {
  constructor(readonly signal: AbortSignal) {}

  get aborted(): boolean {
    return this.signal.aborted;
  }

  onAbort(listener: () => void): () => void {
    this.signal.addEventListener('abort', listener, { once: true });
    return () => this.signal.removeEventListener('abort', listener);
  }
}

export function signalCancellation(signal: AbortSignal): CallCancellation {
  return new SignalCancellation(signal);
}
