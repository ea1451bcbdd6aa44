import RandExp from 'randexp';
import { SchemaRecord, matchesPattern } from './schema-node.util';

/** Scalar values worth trying against a schema: its boundaries first, then common ones. */

/** A Map: a format named `constructor` or `toString` must find no sample, not Object.prototype's member. */
const FORMAT_SAMPLES: ReadonlyMap<string, string> = new Map([
  ['date', '2024-01-31'],
  ['date-time', '2024-01-31T12:00:00Z'],
  ['time', '12:00:00Z'],
  ['duration', 'P1D'],
  ['email', 'a@example.com'],
  ['hostname', 'example.com'],
  ['ipv4', '192.0.2.1'],
  ['ipv6', '2001:db8::1'],
  ['uri', 'https://example.com/a'],
  ['uri-reference', '/a'],
  ['uuid', '123e4567-e89b-12d3-a456-426614174000'],
  ['regex', '^a$'],
]);

const COMMON_STRINGS = ['', 'a', 'A', '0', '1', 'abc', 'ABC', 'GBP', 'a1', 'A1', 'hello world', '-', 'x-y_z', 'not-a-format'];
const COMMON_NUMBERS = [0, 1, -1, 2, 10, 100, -100, 0.5, 1.5, 1000000];

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function boundaryNumbers(rec: SchemaRecord): number[] {
  const lo = finite(rec.minimum);
  const hi = finite(rec.maximum);
  const xlo = finite(rec.exclusiveMinimum);
  const xhi = finite(rec.exclusiveMaximum);
  const out: number[] = [];
  if (lo !== undefined) out.push(lo, lo + 1, lo + 0.5);
  if (xlo !== undefined) out.push(Math.floor(xlo) + 1, xlo + 0.5, xlo + 0.001);
  if (hi !== undefined) out.push(hi, hi - 1, hi - 0.5);
  if (xhi !== undefined) out.push(Math.ceil(xhi) - 1, xhi - 0.5, xhi - 0.001);
  const low = lo ?? xlo;
  const high = hi ?? xhi;
  if (low !== undefined && high !== undefined) out.push((low + high) / 2, Math.round((low + high) / 2));
  return out;
}

function multiples(rec: SchemaRecord, around: number[]): number[] {
  const step = finite(rec.multipleOf);
  if (step === undefined || step <= 0) return [];
  const out = [step, 2 * step, 3 * step, 0];
  for (const value of around) out.push(Math.ceil(value / step) * step, Math.floor(value / step) * step);
  return out;
}

export function numberCandidates(rec: SchemaRecord, integer: boolean): number[] {
  const bounds = boundaryNumbers(rec);
  const all = [...bounds, ...multiples(rec, bounds), ...COMMON_NUMBERS];
  const seen = new Set<number>();
  return all.filter((value) => {
    if (!Number.isFinite(value) || (integer && !Number.isInteger(value)) || seen.has(value)) return false;
    seen.add(value);
    return true;
  });
}

/** Mirrors ajv's numeric keywords, including its `multipleOf` test. */
export function numberFits(rec: SchemaRecord, value: number, integer: boolean): boolean {
  if (!Number.isFinite(value) || (integer && !Number.isInteger(value))) return false;
  const lo = finite(rec.minimum);
  const hi = finite(rec.maximum);
  const xlo = finite(rec.exclusiveMinimum);
  const xhi = finite(rec.exclusiveMaximum);
  const step = finite(rec.multipleOf);
  if ((lo !== undefined && value < lo) || (hi !== undefined && value > hi)) return false;
  if ((xlo !== undefined && value <= xlo) || (xhi !== undefined && value >= xhi)) return false;
  if (step !== undefined) {
    const ratio = value / step;
    if (ratio !== parseInt(String(ratio), 10)) return false;
  }
  return true;
}

export function stringCandidates(rec: SchemaRecord): string[] {
  const minLength = finite(rec.minLength) ?? 0;
  const maxLength = finite(rec.maxLength);
  const format = typeof rec.format === 'string' ? FORMAT_SAMPLES.get(rec.format) : undefined;
  const declared = declaredStrings(rec);
  const fromPattern = typeof rec.pattern === 'string' ? patternSample(rec.pattern, minLength) : undefined;
  const bases = [...declared, ...(fromPattern === undefined ? [] : [fromPattern]), ...(format === undefined ? [] : [format]), ...COMMON_STRINGS];
  const out = new Set<string>();
  for (const base of bases) {
    out.add(base);
    out.add(fitLength(base, minLength, maxLength));
  }
  out.add('a'.repeat(minLength));
  if (maxLength !== undefined) out.add('a'.repeat(maxLength));
  return [...out];
}

function fitLength(text: string, minLength: number, maxLength: number | undefined): string {
  const chars = [...text];
  const filler = chars.length > 0 ? chars[chars.length - 1] : 'a';
  while (chars.length < minLength) chars.push(filler);
  return (maxLength === undefined ? chars : chars.slice(0, Math.max(maxLength, 0))).join('');
}

/** Length (in code points, as ajv counts) and pattern; formats are left to the validator. */
export function stringFits(rec: SchemaRecord, value: string): boolean {
  const length = [...value].length;
  const minLength = finite(rec.minLength);
  const maxLength = finite(rec.maxLength);
  if ((minLength !== undefined && length < minLength) || (maxLength !== undefined && length > maxLength)) return false;
  if (typeof rec.pattern === 'string' && matchesPattern(rec.pattern, value) === false) return false;
  return true;
}

/** Strings the schema itself offers: const, default, examples. */
function declaredStrings(rec: SchemaRecord): string[] {
  const values = [rec.const, rec.default, ...(Array.isArray(rec.examples) ? rec.examples : [])];
  return values.filter((v): v is string => typeof v === 'string');
}

/**
 * The smallest string a pattern generates (every choice takes its first option, repetitions
 * their minimum, at least `minLength` where the pattern allows): deterministic, no randomness.
 */
function patternSample(pattern: string, minLength: number): string | undefined {
  try {
    const generator = new RandExp(pattern);
    generator.max = Math.max(1, minLength);
    generator.randInt = (from: number) => from;
    return generator.gen();
  } catch {
    return undefined;
  }
}
