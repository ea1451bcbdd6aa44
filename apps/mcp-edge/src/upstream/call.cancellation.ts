/**
 * How an upstream call learns that its caller cancelled it. A session's tools/call hands in the
 * fast path's own (sessions/session.fast-path.ts), which makes no AbortController unless its
 * signal is read: a controller, a listener on its signal and the listener's removal were about
 * 5 % of the edge's CPU per call. Any other caller's AbortSignal is wrapped (signalCancellation).
 */
export interface CallCancellation {
  readonly aborted: boolean;
  /** What the call was aborted with (a CallCancelled when the edge knows who cancelled). */
  readonly reason: unknown;
  /** The abort signal, made on first read when it was not yet; read for its reason, or by the SDK client. */
  readonly signal: AbortSignal;
  /** Calls `listener` once when the call is cancelled; the function returned stops listening. */
  onAbort(listener: () => void): () => void;
}

/** Who ended a call before its answer came, as its audit record says. */
export type CancelledBy = 'client' | 'connection_closed' | 'session_deleted' | 'session_closed';

const CANCELLED_BY: Record<CancelledBy, string> = {
  client: 'the client cancelled the call (notifications/cancelled)',
  connection_closed: 'the client closed the connection the call came on',
  session_deleted: 'the client deleted its session (DELETE) during the call',
  session_closed: 'the session closed during the call (idle expiry or the edge stopping)',
};

/** Longest reason of a client's own kept in the record. */
const MAX_CLIENT_REASON = 200;

/** The reason the edge aborts a call with: who cancelled it, and the client's own words if it gave any. */
export class CallCancelled {
  constructor(readonly by: CancelledBy, readonly clientReason?: string) {}

  get detail(): string {
    const said = this.clientReason ? `: "${this.clientReason.slice(0, MAX_CLIENT_REASON)}"` : '';
    return `${CANCELLED_BY[this.by]}${said}`;
  }

  /** The reason an upstream's notifications/cancelled carries (the SDK client sends `String(reason)`). */
  toString(): string {
    return this.detail;
  }
}

/**
 * Who cancelled, read from an abort reason. The SDK server (calls it routes itself) aborts with
 * the reason of the client's notifications/cancelled, a string, or with none when its session
 * closes or the client gave none: that case cannot say which.
 */
export function cancellationDetail(reason: unknown): string {
  if (reason instanceof CallCancelled) return reason.detail;
  if (typeof reason === 'string') return new CallCancelled('client', reason).detail;
  return 'the call was cancelled by its client or by the end of its session';
}

class SignalCancellation implements CallCancellation {
  constructor(readonly signal: AbortSignal) {}

  get aborted(): boolean {
    return this.signal.aborted;
  }

  get reason(): unknown {
    return this.signal.reason;
  }

  onAbort(listener: () => void): () => void {
    this.signal.addEventListener('abort', listener, { once: true });
    return () => this.signal.removeEventListener('abort', listener);
  }
}

export function signalCancellation(signal: AbortSignal): CallCancellation {
  return new SignalCancellation(signal);
}
