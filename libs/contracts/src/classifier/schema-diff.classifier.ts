import { comparePaths } from '../json-path.util';
import { schemaDialectOf } from '../schema-dialect.policy';
import type { JsonSchema } from '../schema-dialect.policy';
import type { ChangeClassification, DetectedChange, SchemaChange } from './classifier.types';
import { Direction, maxBump, sortChanges, toSchemaChange } from './bump-policy';
import { caveatWitness } from './caveat-witness';
import type { CompatPolicy } from './compat.policy';
import { SchemaDocument, sameJson } from './schema-node.util';
import { walkSchemas } from './schema-walker';
import { findWitness } from './witness';

/** Classifies one schema pair under `policy`, with paths under `prefix` (`$`, `$.inputSchema`, ...). */
export function classifyWithPrefix(
  oldSchema: unknown,
  newSchema: unknown,
  direction: Direction,
  prefix: string,
  policy: CompatPolicy,
): ChangeClassification {
  const oldDoc = documentOf(oldSchema);
  const newDoc = documentOf(newSchema);
  const { detected, policyApplied } = detectChanges(oldDoc, newDoc, policy, direction);
  // Where the policy decided nothing, strict says what the policy in force says.
  const strict = policy === 'strict' || !policyApplied ? undefined : strictVerdicts(detectChanges(oldDoc, newDoc, 'strict', direction).detected, direction, prefix);
  const changes = sortChanges(detected.map((change) => publicChange(change, direction, prefix, oldDoc, newDoc, strict)));
  const bump = maxBump(changes.map((change) => change.bump));
  const strictBump = maxBump(changes.map((change) => change.strict.bump));
  const result: ChangeClassification = { policy, bump, strictBump, changes };
  if (bump !== 'major') return result;
  const ordered = [...detected].sort((a, b) => comparePaths(a.path, b.path));
  const witness = findWitness(ordered, direction, oldDoc, newDoc);
  return witness === undefined ? result : { ...result, witness };
}

function detectChanges(
  oldDoc: SchemaDocument,
  newDoc: SchemaDocument,
  policy: CompatPolicy,
  direction: Direction,
): { detected: DetectedChange[]; policyApplied: boolean } {
  const walked = walkSchemas(oldDoc, newDoc, policy, direction === 'input');
  const detected = [...dialectChanges(oldDoc, newDoc), ...walked.changes];
  if (detected.length === 0 && !sameJson(oldDoc.root, newDoc.root)) {
    detected.push(rootChange(oldDoc, newDoc, 'other-changed', 'neutral', 'schemas differ only where no value is checked (e.g. unreferenced $defs)'));
  }
  return { detected, policyApplied: walked.policyApplied };
}

/**
 * The strict policy's bump for each change, keyed by what identifies it in the report. The
 * policy changes effects only, never which changes are found or what they say, so every change
 * of the walk in force has its twin here.
 */
function strictVerdicts(detected: DetectedChange[], direction: Direction, prefix: string): Map<string, SchemaChange['strict'][]> {
  const verdicts = new Map<string, SchemaChange['strict'][]>();
  for (const change of detected) {
    const found = toSchemaChange(change, direction, prefix);
    const key = changeKey(found);
    verdicts.set(key, [...(verdicts.get(key) ?? []), found.strict]);
  }
  return verdicts;
}

const changeKey = (change: Pick<SchemaChange, 'path' | 'kind' | 'message'>): string => JSON.stringify([change.path, change.kind, change.message]);

function publicChange(
  change: DetectedChange,
  direction: Direction,
  prefix: string,
  oldDoc: SchemaDocument,
  newDoc: SchemaDocument,
  strict: Map<string, SchemaChange['strict'][]> | undefined,
): SchemaChange {
  const base = toSchemaChange(change, direction, prefix);
  const twin = strict?.get(changeKey(base))?.shift();
  const out: SchemaChange = twin === undefined ? base : { ...base, strict: twin };
  // Caveats speak for callers: an output schema's consumers are not hurt by either case.
  if (direction !== 'input' || change.caveat === undefined) return out;
  const witness = caveatWitness(change, oldDoc, newDoc);
  if (change.caveat.kind === 'narrows') return witness === undefined ? { ...out, narrows: true } : { ...out, narrows: true, witness };
  return witness === undefined ? out : { ...out, witness };
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
