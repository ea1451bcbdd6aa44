import { stableStringify } from '../schema-hash.util';
import type { DetectedChange } from './classifier.types';
import { childSite, compareAside, effectOfChanges, report } from './change-report';
import { sameJson } from './schema-node.util';
import type { NodePair } from './schema-walk.types';

/**
 * allOf / anyOf / then / else are monotone (a looser member makes a looser whole), so
 * changes inside them keep their meaning. oneOf, not and if are not: a looser oneOf
 * branch can make a value match twice, a looser `not` rejects more. Changes there are
 * conservatively major unless they only touch annotations.
 */
const MONOTONE = new Set(['allOf', 'anyOf', 'then', 'else']);

export function compositionRules(pair: NodePair): void {
  for (const keyword of ['allOf', 'anyOf', 'oneOf']) listRule(pair, keyword);
  const conditionSame = sameJson(pair.o.if, pair.n.if);
  for (const keyword of ['not', 'if', 'then', 'else']) singleRule(pair, keyword, conditionSame);
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
