import { ownMember } from '../json-path.util';
import type { ChangeKind } from './classifier.types';
import { describeValue, report } from './change-report';
import { sameJson } from './schema-node.util';
import type { NodePair } from './schema-walk.types';

/** Keywords the other rule modules handle; everything else is decided here. */
const STRUCTURAL = new Set([
  'type', 'enum', 'const', 'minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties',
  'maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties', 'multipleOf', 'uniqueItems',
  'pattern', 'format', 'properties', 'required', 'additionalProperties', 'patternProperties', 'items',
  'prefixItems', 'additionalItems', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', '$defs',
  'definitions', '$schema',
]);

/**
 * Validation keywords without a rule of their own: adding one can only reject more,
 * removing one can only accept more, and a change either way cannot be proven safe.
 */
const OTHER_ASSERTIONS = new Set([
  'dependentRequired', 'dependentSchemas', 'dependencies', 'propertyNames', 'contains', 'minContains',
  'maxContains', 'unevaluatedProperties', 'unevaluatedItems', '$ref', '$dynamicRef', '$recursiveRef',
]);

const NAMED_ANNOTATIONS: ReadonlyMap<string, ChangeKind> = new Map([
  ['description', 'description-changed'],
  ['title', 'title-changed'],
  ['default', 'default-changed'],
]);

export function otherKeywordRules(pair: NodePair): void {
  const keys = new Set([...Object.keys(pair.o), ...Object.keys(pair.n)]);
  for (const key of [...keys].sort()) {
    if (STRUCTURAL.has(key) || sameJson(ownMember(pair.o, key), ownMember(pair.n, key))) continue;
    // A default the edge fills in is judged by the object that holds the property (default-rules.ts).
    if (key === 'default' && pair.site.defaultJudged) continue;
    if (OTHER_ASSERTIONS.has(key)) assertionRule(pair, key);
    else annotationRule(pair, key);
  }
}

function assertionRule(pair: NodePair, key: string): void {
  const before = ownMember(pair.o, key);
  const after = ownMember(pair.n, key);
  if (before === undefined) {
    report(pair, [key], 'keyword-added', 'narrower', `${key} added: it can only reject more values`);
  } else if (after === undefined) {
    report(pair, [key], 'keyword-removed', 'wider', `${key} removed: it can only accept more values`);
  } else {
    report(pair, [key], 'keyword-changed', 'both', `${key} changed and cannot be proven compatible`);
  }
}

/** Annotations (and unknown keywords, which validators ignore) never change acceptance. */
function annotationRule(pair: NodePair, key: string): void {
  const kind = NAMED_ANNOTATIONS.get(key) ?? 'annotation-changed';
  const from = describeValue(ownMember(pair.o, key));
  const to = describeValue(ownMember(pair.n, key));
  report(pair, [key], kind, 'neutral', `${key} changed from ${from} to ${to}`);
}
