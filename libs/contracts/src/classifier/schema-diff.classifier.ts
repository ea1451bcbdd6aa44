import { comparePaths } from '../json-path.util';
import { schemaDialectOf } from '../schema-dialect.policy';
import type { JsonSchema } from '../schema-dialect.policy';
import type { ChangeClassification, DetectedChange } from './classifier.types';
import { Direction, maxBump, sortChanges, toSchemaChange } from './bump-policy';
import { SchemaDocument, sameJson } from './schema-node.util';
import { walkSchemas } from './schema-walker';
import { findWitness } from './witness';

/** Classifies one schema pair, with paths under `prefix` (`$`, `$.inputSchema`, ...). */
export function classifyWithPrefix(
  oldSchema: unknown,
  newSchema: unknown,
  direction: Direction,
  prefix: string,
): ChangeClassification {
  const oldDoc = documentOf(oldSchema);
  const newDoc = documentOf(newSchema);
  const detected = [...dialectChanges(oldDoc, newDoc), ...walkSchemas(oldDoc, newDoc)];
  if (detected.length === 0 && !sameJson(oldSchema, newSchema)) {
    detected.push(rootChange(oldDoc, newDoc, 'other-changed', 'neutral', 'schemas differ only where no value is checked (e.g. unreferenced $defs)'));
  }
  const changes = sortChanges(detected.map((change) => toSchemaChange(change, direction, prefix)));
  const bump = maxBump(changes.map((change) => change.bump));
  if (bump !== 'major') return { bump, changes };
  const ordered = [...detected].sort((a, b) => comparePaths(a.path, b.path));
  const witness = findWitness(ordered, direction, oldDoc, newDoc);
  return witness === undefined ? { bump, changes } : { bump, changes, witness };
}

function documentOf(schema: unknown): SchemaDocument {
  const draft07 = isJsonSchema(schema) && schemaDialectOf(schema) === 'draft-07';
  return { root: schema, draft07 };
}

function isJsonSchema(value: unknown): value is JsonSchema {
  return typeof value === 'boolean' || (typeof value === 'object' && value !== null && !Array.isArray(value));
}

function dialectChanges(oldDoc: SchemaDocument, newDoc: SchemaDocument): DetectedChange[] {
  const before = isJsonSchema(oldDoc.root) ? schemaDialectOf(oldDoc.root) : undefined;
  const after = isJsonSchema(newDoc.root) ? schemaDialectOf(newDoc.root) : undefined;
  if (before === after) return [];
  const message = `dialect changed from ${before ?? 'unsupported'} to ${after ?? 'unsupported'}: keywords may be read differently`;
  return [rootChange(oldDoc, newDoc, 'dialect-changed', 'both', message, '$.$schema')];
}

function rootChange(
  oldDoc: SchemaDocument,
  newDoc: SchemaDocument,
  kind: DetectedChange['kind'],
  effect: DetectedChange['effect'],
  message: string,
  path = '$',
): DetectedChange {
  return { path, kind, effect, message, oldNode: oldDoc.root, newNode: newDoc.root, wrap: (_side, value) => value };
}
