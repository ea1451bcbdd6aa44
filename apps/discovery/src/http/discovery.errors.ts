import { RebuildTimeout, RebuildUnavailable } from '../catalog.rebuilder';
import type { RequestIssue } from './discover.requests';

/** Every way discovery refuses or fails a request. Transports map these codes; nothing here names HTTP. */
export type DiscoveryErrorCode = 'INVALID_REQUEST' | 'FORBIDDEN' | 'REBUILD_TIMEOUT' | 'REBUILD_UNAVAILABLE';

export interface DiscoveryError {
  code: DiscoveryErrorCode;
  message: string;
  details?: unknown;
}

export function invalidRequest(issues: RequestIssue[]): DiscoveryError {
  return { code: 'INVALID_REQUEST', message: 'the discovery request is malformed', details: { issues } };
}

/** A rebuild that failed for a reason the caller can act on, or undefined for a fault of ours. */
export function rebuildFailure(error: unknown): DiscoveryError | undefined {
  if (error instanceof RebuildTimeout) return { code: 'REBUILD_TIMEOUT', message: error.message };
  if (error instanceof RebuildUnavailable) return { code: 'REBUILD_UNAVAILABLE', message: error.message };
  return undefined;
}
