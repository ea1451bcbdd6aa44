/** Every way a registry command can be refused. Transports map these codes; the domain never names HTTP. */
export type RegistryErrorCode =
  | 'INVALID_SPEC'
  | 'CONTRACT_REJECTED'
  | 'SERVER_NOT_FOUND'
  | 'SERVER_ALREADY_REGISTERED'
  | 'NAMESPACE_FORBIDDEN'
  | 'NAMESPACE_IN_USE'
  | 'VERSION_ALREADY_PUBLISHED'
  | 'VERSION_NOT_NEWER'
  | 'BUMP_TOO_SMALL'
  | 'TOOL_NOT_FOUND'
  | 'VERSION_NOT_FOUND'
  | 'INVALID_TRANSITION'
  | 'INVALID_REPLACEMENT'
  | 'CONCURRENCY_CONFLICT'
  | 'EVENT_TOO_LARGE';

export interface RegistryError {
  code: RegistryErrorCode;
  message: string;
  details?: unknown;
}

export function registryError(code: RegistryErrorCode, message: string, details?: unknown): RegistryError {
  return details === undefined ? { code, message } : { code, message, details };
}

export type Decision<E> = { ok: true; events: E[] } | { ok: false; error: RegistryError };
