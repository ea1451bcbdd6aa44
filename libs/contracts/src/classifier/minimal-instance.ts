import { isRecord } from '../json-path.util';
import { stableStringify } from '../schema-hash.util';
import {
  JsonType,
  SchemaDocument,
  SchemaRecord,
  asRecord,
  deref,
  propertiesOf,
  requiredOf,
  typeSet,
  undeclaredPropertySchema,
} from './schema-node.util';
import { numberCandidates, numberFits, stringCandidates, stringFits } from './value-samples';

const MAX_DEPTH = 12;

/**
 * A small value the schema (probably) accepts, built from const, enum, type, required
 * properties and bounds. `undefined` when the schema is `false`. Callers verify with the
 * real validator: this is a best guess, never a proof.
 */
export function minimalInstance(raw: unknown, doc: SchemaDocument, depth = 0): unknown {
  if (depth > MAX_DEPTH) return null;
  const { node } = deref(raw, doc);
  if (node === false) return undefined;
  const rec = asRecord(node);
  if (!rec) return null;
  const flat = flattenComposition(rec, doc);
  if (Object.hasOwn(flat, 'const')) return flat.const;
  if (Array.isArray(flat.enum) && flat.enum.length > 0) return flat.enum[0];
  return minimalOfType(flat, preferredType(flat), doc, depth);
}

export function minimalOfType(rec: SchemaRecord, type: JsonType, doc: SchemaDocument, depth: number): unknown {
  switch (type) {
    case 'object':
      return minimalObject(rec, doc, depth);
    case 'array':
      return minimalArray(rec, doc, depth);
    case 'string':
      return stringCandidates(rec).find((s) => stringFits(rec, s)) ?? 'a'.repeat(Number(rec.minLength) || 0);
    case 'integer':
    case 'number':
      return numberCandidates(rec, type === 'integer').find((n) => numberFits(rec, n, type === 'integer')) ?? 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

/** Folds allOf members (and the first anyOf/oneOf branch) into one record, shallowly. */
export function flattenComposition(rec: SchemaRecord, doc: SchemaDocument): SchemaRecord {
  const { allOf, anyOf, oneOf, ...rest } = rec;
  let merged: SchemaRecord = rest;
  const members = [
    ...(Array.isArray(allOf) ? allOf : []),
    ...(Array.isArray(anyOf) && anyOf.length > 0 ? [anyOf[0]] : []),
    ...(Array.isArray(oneOf) && oneOf.length > 0 ? [oneOf[0]] : []),
  ];
  for (const member of members) {
    const part = asRecord(deref(member, doc).node);
    if (part) merged = mergeRecords(merged, part);
  }
  return merged;
}

function mergeRecords(a: SchemaRecord, b: SchemaRecord): SchemaRecord {
  const merged: SchemaRecord = { ...b, ...a };
  if (isRecord(a.properties) || isRecord(b.properties)) merged.properties = { ...propertiesOf(b), ...propertiesOf(a) };
  const required = new Set([...requiredOf(a), ...requiredOf(b)]);
  if (required.size > 0) merged.required = [...required];
  return merged;
}

export function preferredType(rec: SchemaRecord): JsonType {
  const declared = typeSet(rec);
  if (declared !== undefined) {
    const order = Array.isArray(rec.type) ? (rec.type as JsonType[]) : [rec.type as JsonType];
    return order.find((t) => declared.has(t)) ?? 'null';
  }
  if (['properties', 'required', 'additionalProperties', 'minProperties'].some((k) => k in rec)) return 'object';
  if (['items', 'prefixItems', 'minItems', 'uniqueItems'].some((k) => k in rec)) return 'array';
  if (['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'].some((k) => k in rec)) return 'number';
  if (['minLength', 'maxLength', 'pattern', 'format'].some((k) => k in rec)) return 'string';
  return 'null';
}

function minimalObject(rec: SchemaRecord, doc: SchemaDocument, depth: number): Record<string, unknown> {
  const properties = propertiesOf(rec);
  // No prototype: a property named `__proto__` is assigned as data, and `constructor` is not already there.
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const name of requiredOf(rec)) {
    const schema = Object.hasOwn(properties, name) ? properties[name] : undeclaredPropertySchema(rec, name);
    const value = minimalInstance(schema, doc, depth + 1);
    if (value !== undefined) out[name] = value;
  }
  const minProperties = typeof rec.minProperties === 'number' ? rec.minProperties : 0;
  for (const name of Object.keys(properties)) {
    if (Object.keys(out).length >= minProperties) break;
    const value = minimalInstance(properties[name], doc, depth + 1);
    if (!Object.hasOwn(out, name) && value !== undefined) out[name] = value;
  }
  return out;
}

/** The schema for position `index` of an array: tuple entry first, then the rest schema. */
export function itemSchemaAt(rec: SchemaRecord, index: number, draft07: boolean): unknown {
  const tuple = draft07 ? (Array.isArray(rec.items) ? rec.items : undefined) : rec.prefixItems;
  if (Array.isArray(tuple) && index < tuple.length) return tuple[index];
  const rest = draft07 ? (Array.isArray(rec.items) ? rec.additionalItems : rec.items) : rec.items;
  return rest ?? true;
}

function minimalArray(rec: SchemaRecord, doc: SchemaDocument, depth: number): unknown[] {
  const minItems = typeof rec.minItems === 'number' ? rec.minItems : 0;
  const out: unknown[] = [];
  const used = new Set<string>();
  for (let i = 0; i < minItems && i < 64; i += 1) {
    const item = itemSchemaAt(rec, i, doc.draft07);
    let value = minimalInstance(item, doc, depth + 1);
    // uniqueItems: the same minimal value twice would be refused, so take the next one the item allows.
    if (rec.uniqueItems === true && used.has(stableStringify(value))) value = distinctValue(item, doc, used) ?? value;
    used.add(stableStringify(value));
    out.push(value === undefined ? null : value);
  }
  return out;
}

/** A scalar the item schema allows (enum members, then its type's samples) not yet in `used`. */
function distinctValue(raw: unknown, doc: SchemaDocument, used: Set<string>): unknown {
  const flat = flattenComposition(asRecord(deref(raw, doc).node) ?? {}, doc);
  const type = preferredType(flat);
  const integer = type === 'integer';
  const pool: unknown[] = Array.isArray(flat.enum)
    ? flat.enum
    : integer || type === 'number'
      ? numberCandidates(flat, integer).filter((n) => numberFits(flat, n, integer))
      : type === 'string'
        ? stringCandidates(flat).filter((text) => stringFits(flat, text))
        : type === 'boolean' ? [false, true] : [];
  return pool.find((value) => !used.has(stableStringify(value)));
}
