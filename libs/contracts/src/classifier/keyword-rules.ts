import { stableStringify } from '../schema-hash.util';
import type { Effect } from './classifier.types';
import { describeValue, report } from './change-report';
import { formatAsserted } from '../schema.validator';
import { ALL_TYPES, JsonType, SchemaRecord, sameJson, typeCovered, typeSet } from './schema-node.util';
import type { NodePair } from './schema-walk.types';

/** Rules for keywords that constrain a single value: type, enum, const, bounds, pattern, format. */

const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'] as const;
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'] as const;

export function valueKeywordRules(pair: NodePair): void {
  typeRule(pair);
  if (!constEnumSwapRule(pair)) {
    enumRule(pair);
    constRule(pair);
  }
  const numeric = numericBoundRules(pair);
  for (const keyword of LOWER_BOUNDS) if (!numeric.has(keyword)) boundRule(pair, keyword, 'lower');
  for (const keyword of UPPER_BOUNDS) if (!numeric.has(keyword)) boundRule(pair, keyword, 'upper');
  multipleOfRule(pair);
  uniqueItemsRule(pair);
  presenceRule(pair, 'pattern');
  formatRule(pair);
}

/**
 * `const` on one side and `enum` on the other: a set of allowed values either way, so compare
 * the sets (`{"const": "x"}` -> `{"enum": ["x", "y"]}` accepts more). True when it decided.
 */
function constEnumSwapRule(pair: NodePair): boolean {
  const oldConst = 'const' in pair.o && !('enum' in pair.o);
  const newConst = 'const' in pair.n && !('enum' in pair.n);
  const oldEnum = Array.isArray(pair.o.enum) && !('const' in pair.o);
  const newEnum = Array.isArray(pair.n.enum) && !('const' in pair.n);
  if (!(oldConst && newEnum) && !(oldEnum && newConst)) return false;
  const before = oldConst ? [pair.o.const] : (pair.o.enum as unknown[]);
  const after = newConst ? [pair.n.const] : (pair.n.enum as unknown[]);
  const oldKeys = new Set(before.map((v) => stableStringify(v)));
  const newKeys = new Set(after.map((v) => stableStringify(v)));
  const removed = [...oldKeys].filter((k) => !newKeys.has(k));
  const added = [...newKeys].filter((k) => !oldKeys.has(k));
  const from = oldConst ? `const ${describeValue(pair.o.const)}` : `enum ${describeValue(pair.o.enum)}`;
  const to = newConst ? `const ${describeValue(pair.n.const)}` : `enum ${describeValue(pair.n.enum)}`;
  const keyword = newConst ? 'const' : 'enum';
  if (removed.length > 0) report(pair, [keyword], 'enum-narrowed', 'narrower', `${from} replaced by ${to}: ${removed.join(', ')} no longer accepted`);
  if (added.length > 0) report(pair, [keyword], 'enum-widened', 'wider', `${from} replaced by ${to}: ${added.join(', ')} now accepted`);
  if (removed.length === 0 && added.length === 0) report(pair, [keyword], 'keyword-changed', 'neutral', `${from} replaced by ${to}: the same values are accepted`);
  return true;
}

type Bound = { value: number; exclusive: boolean; keyword: string };

/**
 * minimum/exclusiveMinimum (and the maximum pair) bound one value together: compared as one
 * effective bound, so `exclusiveMinimum: 1` -> `minimum: 1` reads as looser, not as a bound
 * added. On integers an exclusive bound is the next whole inclusive one. Returns the keywords
 * it decided; non-numeric values are left to boundRule.
 */
function numericBoundRules(pair: NodePair): Set<string> {
  const decided = new Set<string>();
  for (const [inclusive, exclusive, side] of [['minimum', 'exclusiveMinimum', 'lower'], ['maximum', 'exclusiveMaximum', 'upper']] as const) {
    const values = [pair.o[inclusive], pair.o[exclusive], pair.n[inclusive], pair.n[exclusive]];
    if (values.some((v) => v !== undefined && typeof v !== 'number')) continue;
    decided.add(inclusive).add(exclusive);
    const before = effectiveBound(pair.o, inclusive, exclusive, side);
    const after = effectiveBound(pair.n, inclusive, exclusive, side);
    if (sameJson(pair.o[inclusive], pair.n[inclusive]) && sameJson(pair.o[exclusive], pair.n[exclusive])) continue;
    const order = compareBounds(before, after, side);
    const describe = (bound: Bound | undefined) => (bound === undefined ? 'none' : `${bound.keyword} ${bound.value}`);
    const text = `${side} bound ${describe(before)} -> ${describe(after)}`;
    const at = [order > 0 ? (after as Bound).keyword : (before ?? after)?.keyword ?? inclusive];
    if (order > 0) report(pair, at, 'bound-tightened', 'narrower', `${text}: tightened`);
    else if (order < 0) report(pair, at, 'bound-loosened', 'wider', `${text}: loosened`);
    else report(pair, at, 'keyword-changed', 'neutral', `${text}: the same values are accepted`);
  }
  return decided;
}

function effectiveBound(node: SchemaRecord, inclusive: string, exclusive: string, side: 'lower' | 'upper'): Bound | undefined {
  const integer = isIntegerOnly(node);
  const bounds: Bound[] = [];
  if (typeof node[inclusive] === 'number') bounds.push({ value: node[inclusive] as number, exclusive: false, keyword: inclusive });
  if (typeof node[exclusive] === 'number') bounds.push({ value: node[exclusive] as number, exclusive: true, keyword: exclusive });
  const normal = bounds.map((b) => (integer ? toInclusiveInteger(b, side) : b));
  let tightest: Bound | undefined;
  for (const bound of normal) if (tightest === undefined || compareBounds(tightest, bound, side) > 0) tightest = bound;
  return tightest;
}

/** Whether only integers pass the type check, so an exclusive bound equals the next whole inclusive one. */
function isIntegerOnly(node: SchemaRecord): boolean {
  const types = typeSet(node);
  return types !== undefined && [...types].every((t) => t === 'integer');
}

function toInclusiveInteger(bound: Bound, side: 'lower' | 'upper'): Bound {
  if (side === 'lower') return { ...bound, value: bound.exclusive ? Math.floor(bound.value) + 1 : Math.ceil(bound.value), exclusive: false };
  return { ...bound, value: bound.exclusive ? Math.ceil(bound.value) - 1 : Math.floor(bound.value), exclusive: false };
}

/** > 0 when `after` admits fewer values than `before`, < 0 when more, 0 when the same. */
function compareBounds(before: Bound | undefined, after: Bound | undefined, side: 'lower' | 'upper'): number {
  if (before === undefined || after === undefined) return before === after ? 0 : after === undefined ? -1 : 1;
  const sign = side === 'lower' ? 1 : -1;
  if (before.value !== after.value) return sign * (after.value - before.value) > 0 ? 1 : -1;
  return Number(after.exclusive) - Number(before.exclusive);
}

/**
 * A format the validator does not assert (unknown, like `iban`, or one that accepts every
 * string) is an annotation: the edge accepts any string for it.
 */
function formatRule(pair: NodePair): void {
  const asserted = (value: unknown) => typeof value === 'string' && formatAsserted(value);
  const before = pair.o.format;
  const after = pair.n.format;
  if (sameJson(before, after)) return;
  if (asserted(before) || asserted(after) || (before !== undefined && typeof before !== 'string') || (after !== undefined && typeof after !== 'string')) {
    presenceRule(pair, 'format');
    return;
  }
  const text = `format ${describeValue(before)} -> ${describeValue(after)}: not a format the validator checks, so any string is accepted either way`;
  report(pair, ['format'], 'annotation-changed', 'neutral', text);
}

function typeRule(pair: NodePair): void {
  const before = typeSet(pair.o);
  const after = typeSet(pair.n);
  const lost = ALL_TYPES.filter((t) => typeCovered(t, before) && !typeCovered(t, after));
  const gained = ALL_TYPES.filter((t) => typeCovered(t, after) && !typeCovered(t, before));
  if (lost.length === 0 && gained.length === 0) return;
  const from = describeTypes(before);
  const to = describeTypes(after);
  if (lost.length > 0 && gained.length > 0) {
    report(pair, ['type'], 'type-changed', 'both', `type changed from ${from} to ${to}`);
  } else if (lost.length > 0) {
    report(pair, ['type'], 'type-narrowed', 'narrower', `type narrowed from ${from} to ${to}: ${lost.join(', ')} no longer accepted`);
  } else {
    report(pair, ['type'], 'type-widened', 'wider', `type widened from ${from} to ${to}: ${gained.join(', ')} now accepted`);
  }
}

function describeTypes(set: Set<JsonType> | undefined): string {
  return set === undefined ? 'any' : [...set].sort().join('|') || 'none';
}

function enumRule(pair: NodePair): void {
  const before = pair.o.enum;
  const after = pair.n.enum;
  if (sameJson(before, after)) return;
  if (!Array.isArray(after)) {
    report(pair, ['enum'], 'enum-widened', 'wider', 'enum removed: any value of the type is accepted');
    return;
  }
  if (!Array.isArray(before)) {
    report(pair, ['enum'], 'enum-narrowed', 'narrower', `enum introduced: only ${describeValue(after)} accepted`);
    return;
  }
  const oldKeys = new Set(before.map((v) => stableStringify(v)));
  const newKeys = new Set(after.map((v) => stableStringify(v)));
  const removed = [...oldKeys].filter((k) => !newKeys.has(k));
  const added = [...newKeys].filter((k) => !oldKeys.has(k));
  if (removed.length > 0) {
    report(pair, ['enum'], 'enum-narrowed', 'narrower', `enum values removed: ${removed.join(', ')}`);
  }
  if (added.length > 0) report(pair, ['enum'], 'enum-widened', 'wider', `enum values added: ${added.join(', ')}`);
}

function constRule(pair: NodePair): void {
  const hadConst = 'const' in pair.o;
  const hasConst = 'const' in pair.n;
  if (!hadConst && !hasConst) return;
  if (hadConst && hasConst && sameJson(pair.o.const, pair.n.const)) return;
  const from = describeValue(pair.o.const);
  const to = describeValue(pair.n.const);
  if (!hadConst) report(pair, ['const'], 'const-added', 'narrower', `const introduced: only ${to} accepted`);
  else if (!hasConst) report(pair, ['const'], 'const-removed', 'wider', `const ${from} removed`);
  else report(pair, ['const'], 'const-changed', 'both', `const changed from ${from} to ${to}`);
}

function boundRule(pair: NodePair, keyword: string, side: 'lower' | 'upper'): void {
  const before = pair.o[keyword];
  const after = pair.n[keyword];
  if (sameJson(before, after)) return;
  const from = describeValue(before);
  const to = describeValue(after);
  if (before !== undefined && after !== undefined && (typeof before !== 'number' || typeof after !== 'number')) {
    report(pair, [keyword], 'keyword-changed', 'both', `${keyword} changed from ${from} to ${to}`);
    return;
  }
  const tighter =
    before === undefined ||
    (after !== undefined && (side === 'lower' ? (after as number) > (before as number) : (after as number) < (before as number)));
  if (tighter) {
    report(pair, [keyword], 'bound-tightened', 'narrower', `${keyword} tightened from ${from} to ${to}`);
  } else {
    report(pair, [keyword], 'bound-loosened', 'wider', `${keyword} loosened from ${from} to ${to}`);
  }
}

/** Looser only when every old multiple is still a multiple: the old step is a multiple of the new. */
function multipleOfRule(pair: NodePair): void {
  const before = pair.o.multipleOf;
  const after = pair.n.multipleOf;
  if (sameJson(before, after)) return;
  const from = describeValue(before);
  const to = describeValue(after);
  if (after === undefined) {
    report(pair, ['multipleOf'], 'bound-loosened', 'wider', `multipleOf ${from} removed`);
  } else if (typeof before === 'number' && typeof after === 'number' && after > 0 && isWholeRatio(before / after)) {
    report(pair, ['multipleOf'], 'bound-loosened', 'wider', `multipleOf relaxed from ${from} to ${to}: every old multiple still fits`);
  } else {
    report(pair, ['multipleOf'], 'bound-tightened', 'narrower', `multipleOf changed from ${from} to ${to}: some old multiples no longer fit`);
  }
}

function isWholeRatio(ratio: number): boolean {
  return Number.isFinite(ratio) && Math.abs(ratio - Math.round(ratio)) < 1e-9;
}

function uniqueItemsRule(pair: NodePair): void {
  const before = pair.o.uniqueItems === true;
  const after = pair.n.uniqueItems === true;
  if (before === after) return;
  if (after) report(pair, ['uniqueItems'], 'unique-items-required', 'narrower', 'uniqueItems turned on: arrays with duplicates rejected');
  else report(pair, ['uniqueItems'], 'unique-items-relaxed', 'wider', 'uniqueItems turned off: duplicates accepted');
}

/** pattern and format: adding or changing one rejects values; removing one accepts more. */
function presenceRule(pair: NodePair, keyword: 'pattern' | 'format'): void {
  const before = pair.o[keyword];
  const after = pair.n[keyword];
  if (sameJson(before, after)) return;
  const from = describeValue(before);
  const to = describeValue(after);
  const why = keyword === 'format' ? ' (the validator checks this format)' : '';
  let effect: Effect = 'both';
  let verb: 'added' | 'changed' | 'removed' = 'changed';
  // A format the validator does not check constrains nothing, so it counts as absent.
  const unchecked = (value: unknown) => value === undefined || (keyword === 'format' && typeof value === 'string' && !formatAsserted(value));
  if (unchecked(before)) [effect, verb] = ['narrower', 'added'];
  else if (unchecked(after)) [effect, verb] = ['wider', 'removed'];
  report(pair, [keyword], `${keyword}-${verb}`, effect, `${keyword} ${verb}: ${from} -> ${to}${why}`);
}
