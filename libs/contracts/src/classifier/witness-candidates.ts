import { ownMember } from '../json-path.util';
import { stableStringify } from '../schema-hash.util';
import { flattenComposition, itemSchemaAt, minimalInstance, minimalOfType } from './minimal-instance';
import {
  ALL_TYPES,
  JsonType,
  SchemaDocument,
  SchemaRecord,
  asRecord,
  deref,
  isOpenSchema,
  propertiesOf,
  requiredOf,
  sameJson,
  typeSet,
  undeclaredPropertySchema,
  unlistedPropertyName,
} from './schema-node.util';
import { numberCandidates, stringCandidates } from './value-samples';

const MAX_CANDIDATES = 120;
const MAX_DEPTH = 2;
const EXTRA_VALUES: unknown[] = [null, 0, 'a', true, {}, []];
/** One value of each JSON type, null last: a witness reads better with a value a caller would send. */
const ANY_TYPE_VALUES: unknown[] = [0, 'a', true, {}, [], 1.5, null];

/**
 * Values worth trying at a schema location: boundaries, enum members, defaults, one value
 * per allowed type, arrays with duplicates, objects with each property set or an extra one.
 * `other` is the schema on the other side; properties that differ from it come first.
 */
export function candidateValues(raw: unknown, doc: SchemaDocument, other: unknown, depth = 0): unknown[] {
  const { node } = deref(raw, doc);
  if (node === false) return [];
  const flat = flattenComposition(asRecord(node) ?? {}, doc);
  const out: unknown[] = [minimalInstance(raw, doc)];
  if ('const' in flat) out.push(flat.const);
  if (Array.isArray(flat.enum)) out.push(...flat.enum);
  if ('default' in flat) out.push(flat.default);
  if (depth < MAX_DEPTH) {
    for (const branch of [flat.anyOf, flat.oneOf, (node as SchemaRecord).anyOf, (node as SchemaRecord).oneOf]) {
      if (Array.isArray(branch)) out.push(...branch.map((b) => minimalInstance(b, doc)));
    }
    for (const type of typeSet(flat) ?? ALL_TYPES) out.push(...typeCandidates(flat, type, doc, asRecord(other) ?? {}, depth));
  }
  return dedupe(out);
}

function dedupe(values: unknown[]): unknown[] {
  const seen = new Set<string>();
  const out: unknown[] = [];
  for (const value of values) {
    if (value === undefined) continue;
    const key = stableStringify(value);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(value);
    if (out.length >= MAX_CANDIDATES) break;
  }
  return out;
}

function typeCandidates(rec: SchemaRecord, type: JsonType, doc: SchemaDocument, other: SchemaRecord, depth: number): unknown[] {
  switch (type) {
    case 'integer':
    case 'number':
      return numberCandidates(rec, type === 'integer');
    case 'string':
      return stringCandidates(rec);
    case 'boolean':
      return [false, true];
    case 'null':
      return [null];
    case 'array':
      return arrayCandidates(rec, doc, depth);
    case 'object':
      return objectCandidates(rec, doc, other, depth);
  }
}

function arrayCandidates(rec: SchemaRecord, doc: SchemaDocument, depth: number): unknown[] {
  const base = minimalOfType(rec, 'array', doc, 0) as unknown[];
  const item = itemSchemaAt(rec, base.length, doc.draft07);
  const samples = candidateValues(item, doc, undefined, depth + 1).slice(0, 6);
  const out: unknown[] = [base];
  for (const sample of samples) {
    out.push([...base, sample], [sample], [sample, sample], base.length > 0 ? [sample, ...base.slice(1)] : [sample]);
  }
  const first = samples[0];
  if (typeof rec.maxItems === 'number' && rec.maxItems <= 64) out.push(Array.from({ length: rec.maxItems }, () => first));
  return out;
}

/** Properties that differ between the two sides first, so large objects stay within the cap. */
function orderedNames(rec: SchemaRecord, other: SchemaRecord): string[] {
  const mine = propertiesOf(rec);
  const theirs = propertiesOf(other);
  const requiredHere = requiredOf(rec);
  const requiredThere = requiredOf(other);
  const differs = (name: string) =>
    !Object.hasOwn(theirs, name) || !sameJson(mine[name], theirs[name]) || requiredHere.has(name) !== requiredThere.has(name);
  const names = Object.keys(mine);
  return [...names.filter(differs), ...names.filter((name) => !differs(name))];
}

function objectCandidates(rec: SchemaRecord, doc: SchemaDocument, other: SchemaRecord, depth: number): unknown[] {
  const base = minimalOfType(rec, 'object', doc, 0) as Record<string, unknown>;
  const out: unknown[] = [base];
  const extraKey = unlistedPropertyName([rec, other]);
  const extraValues = rec.additionalProperties === undefined || typeof rec.additionalProperties === 'boolean'
    ? EXTRA_VALUES
    : candidateValues(rec.additionalProperties, doc, undefined, depth + 1).slice(0, 4);
  for (const value of extraValues) out.push({ ...base, [extraKey]: value });
  out.push(...declaredOnlyThere(rec, doc, other, base, depth));
  const properties = propertiesOf(rec);
  for (const name of orderedNames(rec, other).slice(0, 12)) {
    const theirs = ownMember(propertiesOf(other), name);
    for (const value of candidateValues(properties[name], doc, theirs, depth + 1).slice(0, 8)) {
      out.push({ ...base, [name]: value });
    }
  }
  return out;
}

/**
 * Names only the other side declares, set to what this side accepts under them (its
 * additionalProperties or patternProperties): where a declaration narrowed an open schema, the
 * witness is a value sent under the new name.
 */
function declaredOnlyThere(rec: SchemaRecord, doc: SchemaDocument, other: SchemaRecord, base: Record<string, unknown>, depth: number): unknown[] {
  const mine = propertiesOf(rec);
  const out: unknown[] = [];
  for (const name of Object.keys(propertiesOf(other)).filter((n) => !Object.hasOwn(mine, n)).sort().slice(0, 6)) {
    const fallback = undeclaredPropertySchema(rec, name);
    if (fallback === false) continue;
    const values = isOpenSchema(fallback) ? ANY_TYPE_VALUES : candidateValues(fallback, doc, undefined, depth + 1).slice(0, 8);
    for (const value of values) out.push({ ...base, [name]: value });
  }
  return out;
}
