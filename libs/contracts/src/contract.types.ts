/** A success or a failure; contracts code returns these instead of throwing. */
export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };

/** One problem found in a contract, located by a JSON path such as `$.inputSchema.type`. */
export interface ContractIssue {
  path: string;
  code: string;
  message: string;
}

export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function fail<E>(error: E): { ok: false; error: E } {
  return { ok: false, error };
}
