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

/** Distinct error shapes remembered per compiled schema. */
const SHAPES_PER_SCHEMA = 4;
/** Shapes with more text than this (huge property names, hundreds of errors) are never stored. */
const SHAPE_TEXT_LIMIT = 4_096;
const NUMERIC_TOKEN = /\/(?:0|[1-9]\d*)(?:\/|$)/;

/**
 * Gives the same answer as `translateAjvErrors`, remembered per shape of ajv's errors, for one
 * compiled schema. Callers repeat the same mistakes, and translating costs far more than ajv's
 * own check; the shape holds everything the translation reads, so the answer is identical.
 * Shapes are compared field by field (no hashing of long keys); each call gets its own copies.
 */
export class RememberedTranslator {
  private readonly known: Array<{ shape: string[]; errors: ValidationError[] }> = [];

  translate(errors: readonly ErrorObject[], value: unknown): ValidationError[] {
    let hit: { shape: string[]; errors: ValidationError[] } | undefined;
    for (let k = 0; k < this.known.length; k += 1) {
      if (matches(this.known[k].shape, errors, value)) {
        hit = this.known[k];
        break;
      }
    }
    if (!hit) {
      const shape = shapeOf(errors, value);
      if (shape === undefined) return translateAjvErrors(errors, value);
      hit = { shape, errors: translateAjvErrors(errors, value) };
      this.known.unshift(hit);
      if (this.known.length > SHAPES_PER_SCHEMA) this.known.pop();
    }
    const copies = new Array<ValidationError>(hit.errors.length);
    for (let i = 0; i < copies.length; i += 1) {
      const e = hit.errors[i];
      copies[i] = { path: e.path, keyword: e.keyword, message: e.message };
    }
    return copies;
  }
}

const FIELDS = 6;

/** Compares without building the shape: the common case is a hit, and it should allocate nothing. */
function matches(shape: readonly string[], errors: readonly ErrorObject[], value: unknown): boolean {
  if (shape.length !== errors.length * FIELDS) return false;
  for (let i = 0; i < errors.length; i += 1) {
    const error = errors[i];
    const at = i * FIELDS;
    // Schema path and keyword first: ajv's generated code uses the same string constants each call.
    if (shape[at + 2] !== error.schemaPath || shape[at] !== error.keyword || shape[at + 1] !== error.instancePath) return false;
    if (shape[at + 3] !== (error.message ?? '')) return false;
    if (shape[at + 4] !== (childProperty(error.keyword, error.params as Record<string, unknown>) ?? '')) return false;
    // Same keyword and instance path, so whether the value must be read is the same as when stored.
    if (shape[at + 5] !== '' && shape[at + 5] !== readFromValue(error, value)) return false;
  }
  return true;
}

/**
 * What the translation depends on, five fields per error: keyword, instance path, schema path,
 * message and child property, plus what it reads from the value — which numeric steps index
 * arrays, and the actual type under a type error.
 */
function shapeOf(errors: readonly ErrorObject[], value: unknown): string[] | undefined {
  const shape: string[] = [];
  let text = 0;
  for (const error of errors) {
    const message = error.message ?? '';
    const child = childProperty(error.keyword, error.params as Record<string, unknown>) ?? '';
    const read = error.keyword === 'type' || NUMERIC_TOKEN.test(error.instancePath) ? readFromValue(error, value) : '';
    shape.push(error.keyword, error.instancePath, error.schemaPath, message, child, read);
    text += error.instancePath.length + error.schemaPath.length + message.length + child.length;
    if (text > SHAPE_TEXT_LIMIT) return undefined;
  }
  return shape;
}

/** Which steps of the path index arrays, and under a type error the type actually found; never empty. */
function readFromValue(error: ErrorObject, value: unknown): string {
  const segments = pointerToSegments(error.instancePath, value);
  let read = `${segments.map((s) => (typeof s === 'number' ? 'i' : 'p')).join('')}|`;
  if (error.keyword === 'type') read += `${String((error.params as Record<string, unknown>).type)}|${jsonTypeOf(valueAt(segments, value))}`;
  return read;
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

/**
 * The property an error names under its value: ajv puts it in one param per keyword. Read by
 * keyword, since params differ in shape from keyword to keyword and a chain of lookups over all of
 * them was the costliest step of a remembered translation.
 */
function childProperty(keyword: string, params: Record<string, unknown>): string | undefined {
  let candidate: unknown;
  switch (keyword) {
    case 'required':
    case 'dependentRequired':
    case 'dependencies':
      candidate = params.missingProperty;
      break;
    case 'additionalProperties':
      candidate = params.additionalProperty;
      break;
    case 'unevaluatedProperties':
      candidate = params.unevaluatedProperty;
      break;
    case 'propertyNames':
      candidate = params.propertyName;
      break;
    default:
      return undefined;
  }
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
