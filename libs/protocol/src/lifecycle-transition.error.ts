/**
 * Thrown when the host drives a session out of order (for example reports an initialize
 * answer twice). It signals a bug in the caller, never bad input from the peer: peer
 * mistakes come back as JSON-RPC errors or dropped notifications instead.
 */
export class LifecycleTransitionError extends Error {
  readonly code = 'ILLEGAL_LIFECYCLE_TRANSITION' as const;

  constructor(
    readonly transition: string,
    readonly phase: string,
  ) {
    super(`Cannot apply '${transition}' to a session in phase '${phase}'`);
    this.name = 'LifecycleTransitionError';
  }
}
