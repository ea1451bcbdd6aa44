import { stableStringify } from '../schema-hash.util';
import type { DetectedChange } from './classifier.types';
import { childSite, compareAside, effectOfChanges, report } from './change-report';
import { ALL_TYPES, asRecord, deref, sameJson, typeCovered, typeSet } from './schema-node.util';
import type { NodePair } from './schema-walk.types';

/**
 * allOf / anyOf / then / else are monotone (a looser member makes a looser whole), so
 * changes inside them keep their meaning. oneOf, not and if are not: a looser oneOf
 * branch can make a value match twice, a looser `not` rejects more. Changes there are
 * conservatively major unless they only touch annotations.
 */
const MONOTONE = new Set(['allOf', 'anyOf', 'then', 'else']);

export function compositionRules(pair: NodePair): void {
  const swapped = oneOfAnyOfSwap(pair);
  for (const keyword of ['allOf', 'anyOf', 'oneOf']) if (!swapped || keyword === 'allOf') listRule(pair, keyword);
  const conditionSame = sameJson(pair.o.if, pair.n.if);
  for (const keyword of ['not', 'if', 'then', 'else']) singleRule(pair, keyword, conditionSame);
}

/**
 * The same members moved between oneOf and anyOf: anyOf accepts every value oneOf did (and the
 * values matching several members), so oneOf -> anyOf is looser and anyOf -> oneOf stricter;
 * members of pairwise disjoint types match one at most, so then nothing changes. True when it decided.
 */
function oneOfAnyOfSwap(pair: NodePair): boolean {
  const toAnyOf = pair.o.oneOf !== undefined && pair.o.anyOf === undefined && pair.n.anyOf !== undefined && pair.n.oneOf === undefined;
  const toOneOf = pair.o.anyOf !== undefined && pair.o.oneOf === undefined && pair.n.oneOf !== undefined && pair.n.anyOf === undefined;
  const members = toAnyOf ? pair.o.oneOf : pair.o.anyOf;
  if (!(toAnyOf || toOneOf) || !Array.isArray(members) || !sameJson(members, toAnyOf ? pair.n.anyOf : pair.n.oneOf)) return false;
  const from = toAnyOf ? 'oneOf' : 'anyOf';
  const to = toAnyOf ? 'anyOf' : 'oneOf';
  if (disjointTypes(members, pair)) {
    report(pair, [to], 'composition-changed', 'neutral', `${from} became ${to} over members of disjoint types: a value matches one member at most, so the same values are accepted`);
  } else if (toAnyOf) {
    report(pair, [to], 'composition-changed', 'wider', 'oneOf became anyOf over the same members: values matching several members are now accepted too');
  } else {
    report(pair, [to], 'composition-changed', 'narrower', 'anyOf became oneOf over the same members: values matching several members are now rejected');
  }
  return true;
}

/** Every member declares a type, and no JSON value has the types of two members. */
function disjointTypes(members: unknown[], pair: NodePair): boolean {
  const sets = members.map((member) => {
    const node = asRecord(deref(member, pair.ctx.oldDoc).node);
    return node === undefined ? undefined : typeSet(node);
  });
  if (sets.some((set) => set === undefined)) return false;
  return ALL_TYPES.every((type) => sets.filter((set) => typeCovered(type, set)).length <= 1);
}

function presenceChanged(pair: NodePair, keyword: string): boolean {
  const before = pair.o[keyword];
  const after = pair.n[keyword];
  if (before === undefined && after !== undefined) {
    report(pair, [keyword], 'composition-added', 'narrower', `${keyword} added: it can only reject more values`);
    return true;
  }
  if (before !== undefined && after === undefined) {
    report(pair, [keyword], 'composition-removed', 'wider', `${keyword} removed: it can only accept more values`);
    return true;
  }
  return before === undefined;
}

function memberSite(pair: NodePair, keyword: string, index?: number) {
  const segments = index === undefined ? [keyword] : [keyword, index];
  // A member applies to the same instance as its parent.
  return childSite(pair, segments, (_parent, value) => value);
}

/** Keeps changes when they are safe to keep; otherwise reports one conservative change. */
function keepOrConserve(pair: NodePair, keyword: string, changes: DetectedChange[], monotone: boolean): void {
  const effect = effectOfChanges(changes);
  if (effect === 'neutral' || monotone) {
    pair.ctx.out.push(...changes);
    return;
  }
  const worst = changes.find((change) => change.effect !== 'neutral') ?? changes[0];
  report(
    pair,
    [keyword],
    'composition-changed',
    'both',
    `change under ${keyword} cannot be proven compatible (${worst.kind} at ${worst.path}); treated as breaking`,
  );
}

function listRule(pair: NodePair, keyword: string): void {
  if (presenceChanged(pair, keyword)) return;
  const before = pair.o[keyword];
  const after = pair.n[keyword];
  if (!Array.isArray(before) || !Array.isArray(after)) {
    if (!sameJson(before, after)) report(pair, [keyword], 'composition-changed', 'both', `${keyword} is malformed and changed`);
    return;
  }
  if (before.length === after.length) {
    const changes = before.flatMap((member, i) => compareAside(member, after[i], memberSite(pair, keyword, i), pair.ctx));
    if (changes.length > 0) keepOrConserve(pair, keyword, changes, MONOTONE.has(keyword));
    return;
  }
  membershipRule(pair, keyword, before, after);
}

function containsAll(outer: unknown[], inner: unknown[]): boolean {
  const pool = outer.map((member) => stableStringify(member));
  return inner.every((member) => {
    const at = pool.indexOf(stableStringify(member));
    if (at < 0) return false;
    pool.splice(at, 1);
    return true;
  });
}

function membershipRule(pair: NodePair, keyword: string, before: unknown[], after: unknown[]): void {
  const grew = after.length > before.length && containsAll(after, before);
  const shrank = after.length < before.length && containsAll(before, after);
  if (keyword === 'anyOf' && grew) {
    report(pair, [keyword], 'any-of-branch-added', 'wider', 'anyOf branch added: every old branch is kept, so more values are accepted');
  } else if (keyword === 'anyOf' && shrank) {
    report(pair, [keyword], 'any-of-branch-removed', 'narrower', 'anyOf branch removed: values only it accepted are rejected');
  } else if (keyword === 'allOf' && grew) {
    report(pair, [keyword], 'all-of-member-added', 'narrower', 'allOf member added: it can only reject more values');
  } else if (keyword === 'allOf' && shrank) {
    report(pair, [keyword], 'all-of-member-removed', 'wider', 'allOf member removed: it can only accept more values');
  } else {
    const text = `${keyword} members changed (${before.length} -> ${after.length}) in a way that cannot be proven compatible; treated as breaking`;
    report(pair, [keyword], 'composition-changed', 'both', text);
  }
}

function singleRule(pair: NodePair, keyword: string, conditionSame: boolean): void {
  if (presenceChanged(pair, keyword)) return;
  const changes = compareAside(pair.o[keyword], pair.n[keyword], memberSite(pair, keyword), pair.ctx);
  if (changes.length > 0) keepOrConserve(pair, keyword, changes, MONOTONE.has(keyword) && conditionSame);
}
