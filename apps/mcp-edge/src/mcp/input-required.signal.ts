/**
 * Thrown by a stateless caller's confirmer when the call cannot go on without the user: the
 * stateless dispatcher answers the request with this input_required result. A session never
 * throws it (it asks its client with a request of its own and waits).
 */
export class InputRequiredSignal extends Error {
  constructor(readonly result: Record<string, unknown>) {
    super('input required');
  }
}
