/**
 * The unambiguous syntax fixes the repair pass may make to a scalar. Each rule turns a
 * value of the wrong JSON type into the one value a reader would agree it meant: an exact
 * numeric or boolean string to its number or boolean, a safe integer to its digits. Anything
 * that needs judgement (trimming, exponents, rounding, leading zeros, a fraction's or a large
 * number's digits, a boolean as text) is left alone.
 */
export type Coercion = { coerced: true; value: unknown } | { coerced: false };

const NONE: Coercion = { coerced: false };
const EXACT_INTEGER = /^-?(0|[1-9]\d*)$/;
const EXACT_DECIMAL = /^-?(0|[1-9]\d*)(\.\d+)?$/;
/** Beyond this many significant digits a decimal string no longer survives the trip to a double. */
const MAX_SIGNIFICANT_DIGITS = 15;

export function declaredTypes(schema: Record<string, unknown>): string[] {
  const type = schema.type;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string');
  return [];
}

export function matchesJsonType(type: string, value: unknown): boolean {
  switch (type) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'string':
    case 'boolean':
      return typeof value === type;
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    default:
      return false;
  }
}

export function coerceScalar(types: readonly string[], value: unknown): Coercion {
  if (types.length === 0 || types.some((t) => matchesJsonType(t, value))) return NONE;
  if (typeof value === 'string') return fromString(types, value);
  // Only a safe integer reads back as the digits that were sent: 12345678901234567890 arrives as
  // 12345678901234567000 and 1.10 as 1.1, so their text would be made up. A boolean where text
  // belongs says nothing about which text was meant.
  if (typeof value === 'number' && Number.isSafeInteger(value) && !Object.is(value, -0) && types.includes('string')) {
    return { coerced: true, value: String(value) };
  }
  return NONE;
}

function fromString(types: readonly string[], text: string): Coercion {
  const wantsNumber = types.includes('number');
  if ((wantsNumber || types.includes('integer')) && EXACT_INTEGER.test(text) && text !== '-0') {
    const parsed = Number(text);
    if (Number.isSafeInteger(parsed)) return { coerced: true, value: parsed };
  }
  if (wantsNumber && EXACT_DECIMAL.test(text) && significantDigits(text) <= MAX_SIGNIFICANT_DIGITS) {
    const parsed = Number(text);
    if (!Object.is(parsed, -0)) return { coerced: true, value: parsed };
  }
  if (types.includes('boolean') && (text === 'true' || text === 'false')) {
    return { coerced: true, value: text === 'true' };
  }
  return NONE;
}

function significantDigits(text: string): number {
  return text.replace(/[-.]/g, '').replace(/^0+/, '').length;
}
