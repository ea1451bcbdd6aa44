import type { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { hasUnstorableText } from '@estate/contracts';
import { httpError } from './http-errors';

/** Longest path parameter any route takes: tool names stop at 128, versions and server names below that. */
export const MAX_PATH_PARAMETER = 256;

/**
 * Every path parameter of every service is an identifier: bounded, and free of what PostgreSQL
 * cannot compare. A value outside that names nothing that exists or could be hidden, so a 400
 * saying which parameter is wrong tells a prober nothing a 404 would not.
 */
export class BoundedParamsPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type !== 'param' || typeof value !== 'string') return value;
    const parameter = metadata.data ?? 'path';
    if (value.length > MAX_PATH_PARAMETER) {
      throw httpError(400, 'INVALID_PARAMETER', `"${parameter}" must be at most ${MAX_PATH_PARAMETER} characters`, { parameter });
    }
    if (hasUnstorableText(value)) throw httpError(400, 'INVALID_PARAMETER', `"${parameter}" holds U+0000 or a lone surrogate`, { parameter });
    return value;
  }
}
