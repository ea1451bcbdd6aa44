import { invalidRequestError } from './json-rpc-message.builder';
import type { JsonRpcErrorObject, JsonRpcId } from './json-rpc.types';
import { formatId, truncateForMessage } from './json-value.describer';
import { LifecycleTransitionError } from './lifecycle-transition.error';
import { DEFAULT_MAX_TRACKED_IDS, RequestIdRegistry } from './request-id.registry';

export type SessionPhase = 'awaiting-initialize' | 'awaiting-initialized' | 'operating' | 'closed';

export const MCP_METHOD = {
  Initialize: 'initialize',
  Ping: 'ping',
  Initialized: 'notifications/initialized',
  LogMessage: 'notifications/message',
} as const;

export interface SessionLifecycleOptions {
  /** How many client request ids the session remembers for the reuse rule (oldest forgotten first). */
  readonly maxTrackedIds?: number;
}

/**
 * The MCP session lifecycle as seen by a server, one instance per session. `checkRequest`
 * and `checkNotification` are admission calls: they decide and record in one step (an
 * admitted id counts as used; an admitted `notifications/initialized` starts operation).
 * A refused request uses no id: it was never processed. The host reports what it alone sees:
 * the initialize answer going out (`onInitializeAnswered`, `onInitializeFailed`), and an
 * admitted request it refused after all before processing it (`withdrawRequest`).
 */
export class SessionLifecycle {
  #phase: SessionPhase = 'awaiting-initialize';
  #initializeInFlight = false;
  #protocolVersion: string | undefined;
  readonly #usedIds: RequestIdRegistry;

  constructor(options: SessionLifecycleOptions = {}) {
    this.#usedIds = new RequestIdRegistry(options.maxTrackedIds ?? DEFAULT_MAX_TRACKED_IDS);
  }

  get phase(): SessionPhase {
    return this.#phase;
  }

  /** The version sent in the initialize answer; undefined until then. */
  get protocolVersion(): string | undefined {
    return this.#protocolVersion;
  }

  /** Null when the request may be processed; otherwise the -32600 error to answer it with. */
  checkRequest(method: string, id: JsonRpcId): JsonRpcErrorObject | null {
    if (this.#phase === 'closed') {
      return invalidRequestError('the session is closed; open a new session');
    }
    if (this.#usedIds.has(id)) {
      return invalidRequestError(`id ${formatId(id)} was already used in this session; use a fresh id`);
    }
    const refusal = this.#phaseRefusal(method);
    if (refusal === null) this.#usedIds.add(id);
    return refusal;
  }

  /**
   * The host refused a request this lifecycle admitted before processing it (its HTTP request was
   * refused, or the batch it came in was refused whole): its id was not used after all.
   */
  withdrawRequest(id: JsonRpcId): void {
    this.#usedIds.delete(id);
  }

  /** Whether to process a notification. A notification is never answered, so a refusal is a silent drop. */
  checkNotification(method: string): boolean {
    if (method === MCP_METHOD.Initialized) {
      if (this.#phase !== 'awaiting-initialized') return false;
      this.onInitialized();
      return true;
    }
    return this.#phase === 'operating';
  }

  /** Whether the server may send `method` to the client now: before operation only ping and log messages. */
  canSendToClient(method: string): boolean {
    if (this.#phase === 'operating') return true;
    if (this.#phase !== 'awaiting-initialized') return false;
    return method === MCP_METHOD.Ping || method === MCP_METHOD.LogMessage;
  }

  /** The host sent a successful initialize result carrying `version`. */
  onInitializeAnswered(version: string): void {
    if (!this.#initializeInFlight) {
      throw new LifecycleTransitionError('initialize-answered', this.#phase);
    }
    this.#initializeInFlight = false;
    this.#protocolVersion = version;
    this.#phase = 'awaiting-initialized';
  }

  /** The host answered initialize with an error; the client may try again with a fresh id. */
  onInitializeFailed(): void {
    if (!this.#initializeInFlight) {
      throw new LifecycleTransitionError('initialize-failed', this.#phase);
    }
    this.#initializeInFlight = false;
  }

  /** The client's `notifications/initialized` was accepted; normal operation begins. */
  onInitialized(): void {
    if (this.#phase !== 'awaiting-initialized') {
      throw new LifecycleTransitionError('initialized', this.#phase);
    }
    this.#phase = 'operating';
  }

  /** Ends the session; every later message is refused or dropped. Safe to call twice. */
  close(): void {
    this.#phase = 'closed';
    this.#initializeInFlight = false;
  }

  #phaseRefusal(method: string): JsonRpcErrorObject | null {
    if (method === MCP_METHOD.Initialize) return this.#admitInitialize();
    if (method === MCP_METHOD.Ping || this.#phase === 'operating') return null;
    return invalidRequestError(this.#tooEarlyReason(method));
  }

  #admitInitialize(): JsonRpcErrorObject | null {
    if (this.#phase !== 'awaiting-initialize' || this.#initializeInFlight) {
      return invalidRequestError(
        'initialize was already received in this session; open a new session to initialize again',
      );
    }
    this.#initializeInFlight = true;
    return null;
  }

  #tooEarlyReason(method: string): string {
    const name = `'${truncateForMessage(method)}'`;
    if (this.#phase === 'awaiting-initialized') {
      return `${name} is not allowed until notifications/initialized is received; only ping may be sent before it`;
    }
    if (this.#initializeInFlight) {
      return `${name} is not allowed while initialize is unanswered; wait for its result, then send notifications/initialized`;
    }
    return `${name} is not allowed before initialize; send initialize first`;
  }
}
