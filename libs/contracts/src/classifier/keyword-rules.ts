import { stableStringify } from '../schema-hash.util';
import type { Effect } from './classifier.types';
import { describeValue, report } from './change-report';
import { ALL_TYPES, JsonType, sameJson, typeCovered, typeSet } from './schema-node.util';
import type { NodePair } from './schema-walk.types';

/** Rules for keywords that constrain a single value: type, enum, const, bounds, pattern, format. */

const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'] as const;
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'] as const;

export function valueKeywordRules(pair: NodePair): void {
  typeRule(pair);
  enumRule(pair);
  constRule(pair);
  for (const keyword of LOWER_BOUNDS) boundRule(pair, keyword, 'lower');
  for (const keyword of UPPER_BOUNDS) boundRule(pair, keyword, 'upper');
  multipleOfRule(pair);
  uniqueItemsRule(pair);
  presenceRule(pair, 'pattern');
  presenceRule(pair, 'format');
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
  const why = keyword === 'format' ? ' (formats are asserted by the validator)' : '';
  let effect: Effect = 'both';
  let verb: 'added' | 'changed' | 'removed' = 'changed';
  if (before === undefined) [effect, verb] = ['narrower', 'added'];
  else if (after === undefined) [effect, verb] = ['wider', 'removed'];
  report(pair, [keyword], `${keyword}-${verb}`, effect, `${keyword} ${verb}: ${from} -> ${to}${why}`);
}
