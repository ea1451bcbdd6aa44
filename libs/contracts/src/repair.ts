import { PathSegment, compareSegments, compareText, formatPath, isRecord } from './json-path.util';
import { JsonSchema, schemaDialectOf } from './schema-dialect.policy';
import { cachedLinearRegExp } from './pattern.engine';
import { resolveLocalSchema } from './schema-ref.util';
import { coerceScalar, declaredTypes } from './value-coercion';

export type RepairKind = 'coerced' | 'dropped' | 'defaulted';

/** One fix the repair pass made, located by a JSON path. */
export interface RepairChange {
  path: string;
  kind: RepairKind;
  from?: unknown;
  to?: unknown;
}

export interface RepairOutcome {
  value: unknown;
  changes: RepairChange[];
}

interface Walk {
  root: JsonSchema;
  draft07: boolean;
  changes: { segments: PathSegment[]; change: RepairChange }[];
  defaultDepth: number;
  /** Only fill defaults: no coercion, nothing dropped. */
  defaultsOnly: boolean;
}

/** Defaults that contain objects whose properties have defaults of their own stop here. */
const MAX_DEFAULT_DEPTH = 16;

/**
 * Fixes only what is unambiguous before a model is asked to retry: scalar type coercions,
 * dropping properties the schema forbids, and filling declared defaults. It never makes up
 * a value the schema gives no default for, never mutates its input, and is idempotent.
 */
export function repair(schema: JsonSchema, value: unknown): RepairOutcome {
  return repairWith(schema, value, false);
}

/**
 * The value with the defaults repair would fill, and nothing else changed: what a default
 * contributes to whether a call is accepted, apart from coercion and dropping.
 */
export function withDefaultsFilled(schema: JsonSchema, value: unknown): unknown {
  return repairWith(schema, value, true).value;
}

function repairWith(schema: JsonSchema, value: unknown, defaultsOnly: boolean): RepairOutcome {
  const walk: Walk = {
    root: schema,
    draft07: schemaDialectOf(schema) === 'draft-07',
    changes: [],
    defaultDepth: 0,
    defaultsOnly,
  };
  const repaired = repairValue(schema, value, [], walk);
  walk.changes.sort(
    (a, b) => compareSegments(a.segments, b.segments) || compareText(a.change.kind, b.change.kind),
  );
  return { value: repaired, changes: walk.changes.map((c) => c.change) };
}

function repairValue(schema: JsonSchema | undefined, value: unknown, path: PathSegment[], walk: Walk): unknown {
  const effective = resolveLocalSchema(schema, walk.root);
  if (effective === undefined) return deepCopy(value);
  const coercion = walk.defaultsOnly ? { coerced: false as const } : coerceScalar(declaredTypes(effective), value);
  if (coercion.coerced) {
    record(walk, path, { kind: 'coerced', from: value, to: coercion.value });
    return coercion.value;
  }
  if (Array.isArray(value)) return repairArray(effective, value, path, walk);
  if (isRecord(value)) return repairObject(effective, value, path, walk);
  return value;
}

function repairObject(
  schema: Record<string, unknown>,
  value: Record<string, unknown>,
  path: PathSegment[],
  walk: Walk,
): Record<string, unknown> {
  const properties = isRecord(schema.properties) ? schema.properties : undefined;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const child = [...path, key];
    if (properties && hasOwn(properties, key)) {
      define(out, key, repairValue(properties[key] as JsonSchema, value[key], child, walk));
    } else if (matchesPatternProperty(schema.patternProperties, key)) {
      define(out, key, deepCopy(value[key]));
    } else if (schema.additionalProperties === false && properties && !walk.defaultsOnly) {
      record(walk, child, { kind: 'dropped', from: value[key] });
    } else {
      const extra = isRecord(schema.additionalProperties) ? schema.additionalProperties : undefined;
      define(out, key, repairValue(extra, value[key], child, walk));
    }
  }
  if (properties) fillDefaults(properties, value, out, path, walk);
  return out;
}

function fillDefaults(
  properties: Record<string, unknown>,
  value: Record<string, unknown>,
  out: Record<string, unknown>,
  path: PathSegment[],
  walk: Walk,
): void {
  if (walk.defaultDepth >= MAX_DEFAULT_DEPTH) return;
  for (const key of Object.keys(properties)) {
    if (hasOwn(value, key)) continue;
    const declared = resolveLocalSchema(properties[key] as JsonSchema, walk.root);
    if (!declared || !hasOwn(declared, 'default')) continue;
    // Repair the default too (quietly), so a second pass finds nothing left to do.
    const inner: Walk = { ...walk, changes: [], defaultDepth: walk.defaultDepth + 1 };
    const filled = repairValue(properties[key] as JsonSchema, deepCopy(declared.default), [...path, key], inner);
    define(out, key, filled);
    record(walk, [...path, key], { kind: 'defaulted', to: deepCopy(filled) });
  }
}

function repairArray(schema: Record<string, unknown>, value: unknown[], path: PathSegment[], walk: Walk): unknown[] {
  const tupleKeyword = walk.draft07 ? schema.items : schema.prefixItems;
  const tuple = Array.isArray(tupleKeyword) ? (tupleKeyword as JsonSchema[]) : [];
  const restKeyword = walk.draft07 ? (Array.isArray(schema.items) ? schema.additionalItems : schema.items) : schema.items;
  const rest = isRecord(restKeyword) || typeof restKeyword === 'boolean' ? restKeyword : undefined;
  return value.map((item, index) => {
    const itemSchema = index < tuple.length ? tuple[index] : rest;
    return repairValue(itemSchema, item, [...path, index], walk);
  });
}

function matchesPatternProperty(patterns: unknown, key: string): boolean {
  if (!isRecord(patterns)) return false;
  return Object.keys(patterns).some((pattern) => {
    try {
      return cachedLinearRegExp(pattern).test(key);
    } catch {
      return true; // an unreadable pattern might match: keep the property rather than guess
    }
  });
}

function record(walk: Walk, segments: PathSegment[], change: Omit<RepairChange, 'path'>): void {
  walk.changes.push({ segments, change: { path: formatPath(segments), ...change } });
}

function hasOwn(object: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/** Assigns without ever touching a prototype, even for a key named `__proto__`. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function deepCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(deepCopy);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) define(out, key, deepCopy(value[key]));
  return out;
}
