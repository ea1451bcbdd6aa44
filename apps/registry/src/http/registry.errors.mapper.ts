import type { HttpException } from '@nestjs/common';
import { httpError } from '@estate/platform';
import type { RegistryError, RegistryErrorCode } from '../domain/registry.errors';

function statusOf(code: RegistryErrorCode): number {
  switch (code) {
    case 'INVALID_SPEC':
      return 400;
    case 'NAMESPACE_FORBIDDEN':
      return 403;
    case 'TOOL_NOT_FOUND':
    case 'VERSION_NOT_FOUND':
      return 404;
    case 'SERVER_ALREADY_REGISTERED':
    case 'NAMESPACE_IN_USE':
    case 'VERSION_ALREADY_PUBLISHED':
    case 'VERSION_NOT_NEWER':
    case 'INVALID_TRANSITION':
    case 'CONCURRENCY_CONFLICT':
      return 409;
    case 'EVENT_TOO_LARGE':
      return 413;
    case 'CONTRACT_REJECTED':
    case 'INVALID_REPLACEMENT':
    case 'SERVER_NOT_FOUND':
    case 'BUMP_TOO_SMALL':
      return 422;
    default: {
      const unreachable: never = code;
      throw new Error(`unmapped registry error ${String(unreachable)}`);
    }
  }
}

export function toHttpError(error: RegistryError): HttpException {
  return httpError(statusOf(error.code), error.code, error.message, error.details);
}
