import type { HttpException } from '@nestjs/common';
import { httpError } from '@estate/platform';
import type { DiscoveryError, DiscoveryErrorCode } from './discovery.errors';

function statusOf(code: DiscoveryErrorCode): number {
  switch (code) {
    case 'INVALID_REQUEST':
      return 400;
    case 'FORBIDDEN':
      return 403;
    case 'REBUILD_UNAVAILABLE':
      return 503;
    case 'REBUILD_TIMEOUT':
      return 504;
    default: {
      const unreachable: never = code;
      throw new Error(`unmapped discovery error ${String(unreachable)}`);
    }
  }
}

export function toHttpError(error: DiscoveryError): HttpException {
  return httpError(statusOf(error.code), error.code, error.message, error.details);
}

/** Runs a rebuild or a verify; a failure the caller can act on becomes its mapped answer, anything else stays a fault. */
export async function rebuildAnswer<T>(work: () => Promise<T>, failure: (error: unknown) => DiscoveryError | undefined): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const known = failure(error);
    throw known ? toHttpError(known) : error;
  }
}
