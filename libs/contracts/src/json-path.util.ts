import { isJsonObject } from '@estate/protocol';

/** A step into a JSON value: a property name or an array index. */
export type PathSegment = string | number;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Renders `$`, `$.amount`, `$.legs[1].amount` or `$["odd key"]`. */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = '$';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

export function appendPath(base: string, segment: PathSegment): string {
  return base + formatPath([segment]).slice(1);
}

/**
 * Orders paths segment by segment so `$.legs[2]` comes before `$.legs[10]`
 * (plain string order would not); indices sort before names at the same depth.
 */
export function compareSegments(a: readonly PathSegment[], b: readonly PathSegment[]): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    const order = compareSegment(a[i], b[i]);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

function compareSegment(a: PathSegment, b: PathSegment): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return compareText(a, b);
}

/** Code-unit order: deterministic and independent of any locale. */
export function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/** Parses a path produced by `formatPath` back into segments (used for sorting). */
export function parsePath(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  const step = /\.([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;
  step.lastIndex = path.startsWith('$') ? 1 : 0;
  let match: RegExpExecArray | null;
  while ((match = step.exec(path)) !== null) {
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else segments.push(JSON.parse(match[3]) as string);
  }
  return segments;
}

export function comparePaths(a: string, b: string): number {
  return compareSegments(parsePath(a), parsePath(b));
}

/**
 * Turns an ajv instance pointer (`/legs/1/amount`) into segments, walking the value
 * so that `1` is an index only when the container really is an array.
 */
export function pointerToSegments(pointer: string, root: unknown): PathSegment[] {
  if (pointer === '') return [];
  const segments: PathSegment[] = [];
  let current: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current) && /^(0|[1-9]\d*)$/.test(token)) {
      segments.push(Number(token));
      current = current[Number(token)];
    } else {
      segments.push(token);
      current = isRecord(current) ? current[token] : undefined;
    }
  }
  return segments;
}

/** One "is a JSON object" check for the whole estate: the protocol layer's, which every other layer sits on. */
export const isRecord = isJsonObject;

/**
 * The member a JSON object holds itself. `record[key]` would also find Object.prototype's, so a
 * property named `constructor`, `toString` or `__proto__` read as declared where it was not.
 */
export function ownMember(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
