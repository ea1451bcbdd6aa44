import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { Pins } from '@estate/catalog';
import type { Principal } from '@estate/contracts';
import type { CallContext } from './tool-call.pipeline';

/** What the user answered when asked to confirm; `failed`: no answer came (the token route takes over). */
export type ConfirmAnswer = 'accept' | 'decline' | 'cancel' | 'failed';

export interface ConfirmQuestion {
  readonly tool: string;
  readonly message: string;
  /** What the confirmation is bound to: principal, tool and arguments (policy/confirmation.policy.ts). */
  readonly binding: string;
}

/**
 * How a caller's user is asked before a destructive call. A session asks with an elicitation
 * request; a stateless request answers with input_required and reads the answer from the retry.
 */
export interface Confirmer {
  /** Whether this caller can be asked at all (else a confirmation token is handed out). */
  canAsk(): boolean;
  ask(question: ConfirmQuestion, context: CallContext): Promise<ConfirmAnswer>;
}

/**
 * Who a tool call is made for, whatever the protocol era: a session (EdgeSession satisfies this)
 * or a single stateless request. The pipeline reads only these, which is what lets one pipeline
 * serve both eras.
 */
export interface CallerContext {
  /** Names the caller in logs and spans: the session id, or the stateless request's own id. */
  readonly id: string;
  readonly era: 'session' | 'stateless';
  /** The session a call record names and upstream affinity keys on; none for a stateless request. */
  readonly sessionId?: string;
  /** Rights of the caller (for a session: those of its most recent request). */
  readonly principal: Principal;
  readonly protocolVersion?: string;
  readonly pins: Pins;
  /** Deprecated versions already warned about; a stateless caller starts empty every time. */
  readonly deprecationWarnings: Set<string>;
  readonly logLevel?: LoggingLevel;
  readonly confirmer: Confirmer;
}
