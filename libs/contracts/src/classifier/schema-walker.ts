import type { DetectedChange } from './classifier.types';
import type { CompatPolicy } from './compat.policy';
import { report } from './change-report';
import { otherKeywordRules } from './annotation-rules';
import { arrayRules } from './array-rules';
import { compositionRules } from './composition-rules';
import { valueKeywordRules } from './keyword-rules';
import { objectRules } from './object-rules';
import { SchemaDocument, asRecord, deref, hasLocalRef, sameJson } from './schema-node.util';
import type { NodePair, Site, WalkContext } from './schema-walk.types';

const RULES: ReadonlyArray<(pair: NodePair) => void> = [
  valueKeywordRules,
  objectRules,
  arrayRules,
  compositionRules,
  otherKeywordRules,
];

/**
 * Compares two whole schemas and returns every change found, unsorted, and whether `policy`
 * mattered. `fillsDefaults`: values pass the edge's repair first (input schemas), so a default
 * can be what makes a value acceptable.
 */
export function walkSchemas(
  oldDoc: SchemaDocument,
  newDoc: SchemaDocument,
  policy: CompatPolicy,
  fillsDefaults: boolean,
): { changes: DetectedChange[]; policyApplied: boolean } {
  const policyApplied = { value: false };
  const ctx: WalkContext = { oldDoc, newDoc, policy, policyApplied, seen: new Set(), out: [], compare: compareSchemas };
  const rootSite: Site = { path: '$', wrap: (_side, value) => value, ...(fillsDefaults ? { fills: true as const } : {}) };
  compareSchemas(oldDoc.root, newDoc.root, rootSite, ctx);
  return { changes: ctx.out, policyApplied: policyApplied.value };
}

/**
 * Compares two subschemas at the same site. `$ref`s are followed on both sides (the path
 * stays the one the instance sees); a pair of ref chains is compared once, which both ends
 * cycles and keeps shared definitions from being walked again.
 */
function compareSchemas(oldRaw: unknown, newRaw: unknown, site: Site, ctx: WalkContext): void {
  const before = deref(oldRaw, ctx.oldDoc);
  const after = deref(newRaw, ctx.newDoc);
  if (before.refs.length > 0 || after.refs.length > 0) {
    const key = `${before.refs.join(' ')}|${after.refs.join(' ')}`;
    if (ctx.seen.has(key)) return;
    ctx.seen.add(key);
  }
  if (sameJson(before.node, after.node) && !hasLocalRef(before.node)) return;
  const pair: NodePair = { o: asRecord(before.node) ?? {}, n: asRecord(after.node) ?? {}, site, ctx };
  if (before.node === false || after.node === false) {
    booleanRule(pair, before.node === false, after.node === false);
    return;
  }
  for (const rule of RULES) rule(pair);
}

function booleanRule(pair: NodePair, oldFalse: boolean, newFalse: boolean): void {
  if (oldFalse && newFalse) return;
  if (newFalse) report(pair, [], 'schema-closed', 'narrower', 'schema became false: every value is rejected');
  else report(pair, [], 'schema-opened', 'wider', 'schema was false and now accepts values');
}
