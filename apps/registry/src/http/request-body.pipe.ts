import type { PipeTransform } from '@nestjs/common';
import { httpError } from '@estate/platform';
import type { RequestIssue } from './registry.requests';

type Parse<T> = (body: unknown) => { ok: true; value: T } | { ok: false; issues: RequestIssue[] };

/** A body parser as a Nest pipe: a malformed body is a 400 listing every issue with its path. */
export function parsedBody<T>(parse: Parse<T>, what: string): PipeTransform<unknown, T> {
  return {
    transform(body: unknown): T {
      const parsed = parse(body);
      if (!parsed.ok) throw httpError(400, 'INVALID_REQUEST', `the ${what} is malformed`, { issues: parsed.issues });
      return parsed.value;
    },
  };
}
