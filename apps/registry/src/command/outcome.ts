import type { RegistryError } from '../domain/registry.errors';

/** What a use case answers: a value, or the registry error a transport maps. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: RegistryError };

/** A lifecycle command answers with the event it recorded, or null when there was nothing to change. */
export function firstEvent<E>(outcome: Outcome<{ events: E[] }>): Outcome<E | null> {
  return outcome.ok ? { ok: true, value: outcome.value.events[0] ?? null } : outcome;
}
