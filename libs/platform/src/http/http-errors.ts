import { HttpException } from '@nestjs/common';

/** A problem body every service answers with: a stable code, a message, and details with paths. */
export function httpError(status: number, code: string, message: string, details?: unknown): HttpException {
  return new HttpException(details === undefined ? { error: code, message } : { error: code, message, details }, status);
}
