import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Logger } from 'pino';
import type { IncomingMessage } from 'node:http';
import { isBackendOutage } from './backend-outage';
import { requestLogger } from './request-log.middleware';

/** How long a client should wait before retrying while PostgreSQL is out of reach. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

interface BodyParserError {
  type?: string;
  status?: number;
  message?: string;
}

/**
 * Every error leaves in one shape, `{error, message, details?}`: our own HttpExceptions as they
 * are, body-parser failures as INVALID_JSON / BODY_TOO_LARGE, a lost database connection as 503
 * UNAVAILABLE with Retry-After, anything else as a bare 500 with no stack, class or file name
 * (those go to the log).
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<{
      status(code: number): { json(body: unknown): void }; setHeader(name: string, value: string): void; headersSent?: boolean;
    }>();
    if (response.headersSent) return;
    // The request's own logger: the error line carries its trace and correlation ids.
    const [status, body] = this.describe(exception, requestLogger(host.switchToHttp().getRequest<IncomingMessage>(), this.logger));
    if (status === 503) response.setHeader('Retry-After', String(OUTAGE_RETRY_AFTER_SECONDS));
    response.status(status).json(body);
  }

  private describe(exception: unknown, logger: Logger): [number, unknown] {
    if (exception instanceof HttpException) {
      const body = exception.getResponse();
      if (typeof body === 'object' && body !== null && 'error' in body && 'message' in body && typeof (body as { error: unknown }).error === 'string' && !('statusCode' in body)) {
        return [exception.getStatus(), body];
      }
      // Nest turns body-parser failures into plain 400/413 exceptions before they reach us.
      if (exception.getStatus() === 400 && /JSON/.test(exception.message)) {
        return [400, { error: 'INVALID_JSON', message: `the request body is not valid JSON: ${exception.message}` }];
      }
      return [exception.getStatus(), { error: codeFor(exception.getStatus()), message: exception.message }];
    }
    const parser = exception as BodyParserError;
    if (parser?.type === 'entity.parse.failed') return [400, { error: 'INVALID_JSON', message: 'the request body is not valid JSON' }];
    if (parser?.type === 'entity.too.large') return [413, { error: 'BODY_TOO_LARGE', message: 'the request body is too large' }];
    if (parser?.type === 'unsupported.media.type') return [415, { error: 'UNSUPPORTED_MEDIA_TYPE', message: (exception as Error).message }];
    if (typeof parser?.status === 'number' && parser.status >= 400 && parser.status < 500) {
      return [parser.status, { error: codeFor(parser.status), message: 'the request could not be read' }];
    }
    if (isBackendOutage(exception)) {
      logger.warn({ err: exception }, 'the database is out of reach; answering 503');
      return [503, { error: 'UNAVAILABLE', message: 'the service cannot reach its database right now; retry shortly' }];
    }
    logger.error({ err: exception }, 'unhandled error');
    return [500, { error: 'INTERNAL', message: 'internal error' }];
  }
}

function codeFor(status: number): string {
  switch (status) {
    case 400: return 'BAD_REQUEST';
    case 401: return 'UNAUTHORIZED';
    case 403: return 'FORBIDDEN';
    case 404: return 'NOT_FOUND';
    case 405: return 'METHOD_NOT_ALLOWED';
    case 413: return 'BODY_TOO_LARGE';
    case 415: return 'UNSUPPORTED_MEDIA_TYPE';
    case 503: return 'UNAVAILABLE';
    default: return status >= 500 ? 'INTERNAL' : 'BAD_REQUEST';
  }
}
