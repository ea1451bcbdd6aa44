import { isRecord, ownMember } from '../json-path.util';
import { cachedLinearRegExp } from '../pattern.engine';
import type { Effect } from './classifier.types';

/** A schema node seen as a record; `true` reads as `{}`. `false` stays false. */
export type SchemaRecord = Record<string, unknown>;

export const ALL_TYPES = ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'] as const;
export type JsonType = (typeof ALL_TYPES)[number];

/** Where local `$ref`s of one side resolve, and whether `$ref` siblings count (not in draft-07). */
export interface SchemaDocument {
  root: unknown;
  draft07: boolean;
}

export interface Dereferenced {
  node: unknown;
  /** The refs followed to reach `node`; empty when the node was not a reference. */
  refs: string[];
}

const MAX_REF_HOPS = 32;

/**
 * sameJson answers what comparing both sides' stableStringify would (members in any order, an
 * undefined member absent), without building either text: the classifier asks it of every node
 * pair and metadata field, and building both texts was most of a publish's classification (profiled).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const aObject = typeof a === 'object' && a !== null;
  const bObject = typeof b === 'object' && b !== null;
  // A value that is not an object reads as its JSON (undefined, a function and NaN read as null).
  if (!aObject || !bObject) return !aObject && !bObject && leafJson(a) === leafJson(b);
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && sameItems(a, b);
  return sameMembers(a as Record<string, unknown>, b as Record<string, unknown>);
}

function leafJson(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) {
    // A hole reads as nothing at all, unlike an undefined item (null).
    if ((i in a) !== (i in b)) return false;
    if (i in a && !sameJson(a[i], b[i])) return false;
  }
  return true;
}

function sameMembers(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  let count = 0;
  for (const key of Object.keys(a)) {
    if (a[key] === undefined) continue;
    count += 1;
    if (!Object.prototype.hasOwnProperty.call(b, key) || b[key] === undefined || !sameJson(a[key], b[key])) return false;
  }
  for (const key of Object.keys(b)) if (b[key] !== undefined) count -= 1;
  return count === 0;
}

export function asRecord(node: unknown): SchemaRecord | undefined {
  if (node === true) return {};
  return isRecord(node) ? node : undefined;
}

/** Follows local `$ref`s (`#`, `#/$defs/x`, `#/definitions/x`, any local pointer). */
export function deref(node: unknown, doc: SchemaDocument): Dereferenced {
  const refs: string[] = [];
  let current = node;
  while (isRecord(current) && typeof current.$ref === 'string' && refs.length < MAX_REF_HOPS) {
    const ref = current.$ref;
    if (refs.includes(ref)) break;
    const target = resolvePointer(doc.root, ref);
    if (target === undefined) break;
    refs.push(ref);
    current = mergeSiblings(current, target, doc.draft07);
  }
  return { node: current, refs };
}

function mergeSiblings(referrer: SchemaRecord, target: unknown, draft07: boolean): unknown {
  const siblings = Object.keys(referrer).filter((key) => key !== '$ref');
  if (draft07 || siblings.length === 0) return target;
  const base = asRecord(target);
  if (!base) return { allOf: [target], ...withoutRef(referrer) };
  // Disjoint keywords combine as a conjunction; overlapping ones need an explicit allOf.
  if (siblings.every((key) => !Object.hasOwn(base, key))) return { ...base, ...withoutRef(referrer) };
  return { allOf: [target, withoutRef(referrer)] };
}

function withoutRef(record: SchemaRecord): SchemaRecord {
  const { $ref: _ignored, ...rest } = record;
  return rest;
}

function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let current: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current)) current = current[Number(token)];
    else if (isRecord(current)) current = ownMember(current, token);
    else return undefined;
    if (current === undefined) return undefined;
  }
  return current;
}

export function hasLocalRef(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasLocalRef);
  if (!isRecord(node)) return false;
  if (typeof node.$ref === 'string') return true;
  return Object.values(node).some(hasLocalRef);
}

/** The declared type set, or `undefined` when any type is allowed. */
export function typeSet(node: SchemaRecord): Set<JsonType> | undefined {
  const declared = node.type;
  if (declared === undefined) return undefined;
  const list = Array.isArray(declared) ? declared : [declared];
  return new Set(list.filter((t): t is JsonType => (ALL_TYPES as readonly string[]).includes(t as string)));
}

/** True when `type` is allowed by the set: an integer is also a number. */
export function typeCovered(type: JsonType, set: Set<JsonType> | undefined): boolean {
  if (set === undefined) return true;
  return set.has(type) || (type === 'integer' && set.has('number'));
}

/** A subschema that admits every value: absent, `true` or `{}`. */
export function isOpenSchema(node: unknown): boolean {
  return node === undefined || node === true || (isRecord(node) && Object.keys(node).length === 0);
}

export function propertiesOf(node: SchemaRecord): SchemaRecord {
  return isRecord(node.properties) ? node.properties : {};
}

export function requiredOf(node: SchemaRecord): Set<string> {
  return new Set(Array.isArray(node.required) ? node.required.filter((r): r is string => typeof r === 'string') : []);
}

/**
 * The schema an undeclared property `name` must satisfy: the matching patternProperties
 * (all of them), otherwise additionalProperties, otherwise anything.
 */
export function undeclaredPropertySchema(node: SchemaRecord, name: string): unknown {
  const patterns = isRecord(node.patternProperties) ? node.patternProperties : {};
  const matching = Object.keys(patterns).filter((pattern) => matchesPattern(pattern, name) !== false);
  if (matching.length === 1) return patterns[matching[0]];
  if (matching.length > 1) return { allOf: matching.map((pattern) => patterns[pattern]) };
  return node.additionalProperties ?? true;
}

/** `undefined` when the pattern cannot be compiled here. */
export function matchesPattern(pattern: string, text: string): boolean | undefined {
  try {
    return cachedLinearRegExp(pattern).test(text);
  } catch {
    return undefined;
  }
}

/** A property name declared by neither node and matched by no patternProperties. */
export function unlistedPropertyName(nodes: SchemaRecord[]): string {
  for (let i = 0; ; i += 1) {
    const name = i === 0 ? 'unlisted' : `unlisted${i}`;
    const taken = nodes.some((node) => Object.hasOwn(propertiesOf(node), name) || matchesAnyPattern(node, name));
    if (!taken) return name;
  }
}

function matchesAnyPattern(node: SchemaRecord, name: string): boolean {
  const patterns = isRecord(node.patternProperties) ? Object.keys(node.patternProperties) : [];
  return patterns.some((pattern) => matchesPattern(pattern, name) !== false);
}

/** Joins effects: `neutral` is the identity, `compatible` yields to any real effect. */
export function combineEffects(effects: Iterable<Effect>): Effect {
  let result: Effect = 'neutral';
  for (const effect of effects) result = combineEffect(result, effect);
  return result;
}

function combineEffect(
  a: Effect,
  b: Effect,
): Effect {
  if (a === b) return a;
  if (a === 'neutral') return b;
  if (b === 'neutral') return a;
  if (a === 'compatible') return b;
  if (b === 'compatible') return a;
  return 'both';
}
