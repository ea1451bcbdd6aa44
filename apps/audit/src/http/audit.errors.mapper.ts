import type { HttpException } from '@nestjs/common';
import { httpError } from '@estate/platform';
import type { AuditError, AuditErrorCode } from './audit.errors';

function statusOf(code: AuditErrorCode): number {
  switch (code) {
    case 'INVALID_QUERY':
    case 'INVALID_PARAMETER':
    case 'INVALID_REQUEST':
      return 400;
    case 'NOT_FOUND':
      return 404;
    case 'NOT_ACCEPTABLE':
      return 406;
    default: {
      const unreachable: never = code;
      throw new Error(`unmapped audit error ${String(unreachable)}`);
    }
  }
}

export function toHttpError(error: AuditError): HttpException {
  return httpError(statusOf(error.code), error.code, error.message, error.details);
}
