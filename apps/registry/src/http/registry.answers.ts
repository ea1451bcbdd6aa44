import { httpError } from '@estate/platform';
import type { Outcome } from '../command/outcome';
import { toHttpError } from './registry.errors.mapper';

/** A use case's value, or its registry error as the HTTP problem the mapper gives it. */
export async function answer<T>(outcome: Promise<Outcome<T>>): Promise<T> {
  const done = await outcome;
  if (!done.ok) throw toHttpError(done.error);
  return done.value;
}

/** A read found nothing the viewer may see: the same 404 for a missing record and a hidden one. */
export async function found<T>(value: Promise<T | undefined>, code: 'TOOL_NOT_FOUND' | 'VERSION_NOT_FOUND' | 'SERVER_NOT_FOUND', message: string): Promise<T> {
  const result = await value;
  if (result === undefined) throw httpError(404, code, message);
  return result;
}
