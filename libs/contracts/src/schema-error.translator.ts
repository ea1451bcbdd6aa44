import type { ErrorObject } from 'ajv';
import {
  PathSegment,
  compareSegments,
  compareText,
  formatPath,
  isRecord,
  pointerToSegments,
} from './json-path.util';

/** One way a value breaks its schema, located by a JSON path such as `$.legs[1].amount`. */
export interface ValidationError {
  path: string;
  keyword: string;
  message: string;
}

interface Located {
  segments: PathSegment[];
  error: ValidationError;
}

const COMPOSITE_KEYWORDS = new Set(['anyOf', 'oneOf']);

/**
 * Turns ajv's raw error list into the estate's: failed anyOf/oneOf branches fold into
 * the composite error, a type error silences everything else at or below its value
 * (a wrong type makes bounds meaningless and only adds noise to a repair prompt), and
 * the result is deduplicated and sorted by path, keyword and message.
 */
export function translateAjvErrors(
  errors: readonly ErrorObject[],
  value: unknown,
): ValidationError[] {
  const relevant = dropBranchErrors(errors).filter((e) => e.keyword !== 'if');
  const typePointers = relevant.filter((e) => e.keyword === 'type').map((e) => e.instancePath);
  const located = relevant
    .filter((e) => e.keyword === 'type' || !isBelowAny(e.instancePath, typePointers))
    .map((e) => locate(e, value));
  located.sort(compareLocated);
  return dedupe(located);
}

function dropBranchErrors(errors: readonly ErrorObject[]): ErrorObject[] {
  const prefixes = errors
    .filter((e) => COMPOSITE_KEYWORDS.has(e.keyword))
    .map((e) => `${e.schemaPath}/`);
  if (prefixes.length === 0) return [...errors];
  return errors.filter((e) => !prefixes.some((prefix) => e.schemaPath.startsWith(prefix)));
}

function isBelowAny(pointer: string, ancestors: readonly string[]): boolean {
  return ancestors.some((a) => pointer === a || pointer.startsWith(`${a}/`));
}

function locate(error: ErrorObject, root: unknown): Located {
  const base = pointerToSegments(error.instancePath, root);
  const params = error.params as Record<string, unknown>;
  const child = childProperty(error.keyword, params);
  const segments = child === undefined ? base : [...base, child];
  const message = describe(error, params, valueAt(base, root));
  return { segments, error: { path: formatPath(segments), keyword: error.keyword, message } };
}

function childProperty(keyword: string, params: Record<string, unknown>): string | undefined {
  const candidate =
    params.missingProperty ??
    params.additionalProperty ??
    params.unevaluatedProperty ??
    (keyword === 'propertyNames' ? params.propertyName : undefined);
  return typeof candidate === 'string' ? candidate : undefined;
}

function describe(error: ErrorObject, params: Record<string, unknown>, actual: unknown): string {
  switch (error.keyword) {
    case 'required':
    case 'dependentRequired':
    case 'dependencies':
      return 'is required';
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return 'is not an allowed property';
    case 'type':
      return `must be ${String(params.type)}, got ${jsonTypeOf(actual)}`;
    default:
      return error.message ?? `fails ${error.keyword}`;
  }
}

function valueAt(segments: readonly PathSegment[], root: unknown): unknown {
  let current = root;
  for (const segment of segments) {
    if (typeof segment === 'number' && Array.isArray(current)) current = current[segment];
    else if (isRecord(current)) current = current[String(segment)];
    else return undefined;
  }
  return current;
}

/** JSON's own type names, with integers told apart so "got number" is never confusing. */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function compareLocated(a: Located, b: Located): number {
  return (
    compareSegments(a.segments, b.segments) ||
    compareText(a.error.keyword, b.error.keyword) ||
    compareText(a.error.message, b.error.message)
  );
}

function dedupe(sorted: readonly Located[]): ValidationError[] {
  const out: ValidationError[] = [];
  for (const { error } of sorted) {
    const last = out[out.length - 1];
    if (last && last.path === error.path && last.keyword === error.keyword && last.message === error.message) {
      continue;
    }
    out.push(error);
  }
  return out;
}
