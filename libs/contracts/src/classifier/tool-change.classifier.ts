import { SIDE_EFFECTS } from '../tool-spec';
import type { SideEffect, ToolSpec } from '../tool-spec';
import type { Bump } from '../semver.policy';
import type { ChangeClassification, ChangeKind, SchemaChange } from './classifier.types';
import { DESCRIPTION_CHANGE_BUMP } from './classifier.types';
import { type CompatPolicy, DEFAULT_COMPAT_POLICY } from './compat.policy';
import { maxBump, sortChanges } from './bump-policy';
import { classifyWithPrefix } from './schema-diff.classifier';
import { describeValue } from './change-report';
import { sameJson } from './schema-node.util';

/** Fields of a spec that govern who may use it, not what it accepts: a change is a patch. */
const METADATA_FIELDS = ['requiredScopes', 'dataClassification', 'tenants', 'owner', 'upstream', 'name'] as const;

/**
 * The bump a new version of a tool needs: its input schema (callers), its output schema
 * (consumers; reversed), its description (DESCRIPTION_CHANGE_BUMP), title (patch) and
 * side-effect class. The version field itself is not compared. The witness comes from the
 * input schema when it has one, otherwise from the output schema. `policy`: see compat.policy.ts.
 */
export function classifyToolChange(oldSpec: ToolSpec, newSpec: ToolSpec, policy: CompatPolicy = DEFAULT_COMPAT_POLICY): ChangeClassification {
  const input = classifyWithPrefix(oldSpec.inputSchema, newSpec.inputSchema, 'input', '$.inputSchema', policy);
  const output = outputClassification(oldSpec, newSpec, policy);
  const changes = [...input.changes, ...output.changes, ...fieldChanges(oldSpec, newSpec)];
  if (changes.length === 0 && !sameJson(withoutVersion(oldSpec), withoutVersion(newSpec))) {
    changes.push(change('$', 'other-changed', 'patch', 'the spec differs outside the fields the classifier names'));
  }
  const sorted = sortChanges(changes);
  const bump = maxBump(sorted.map((c) => c.bump));
  const strictBump = maxBump(sorted.map((c) => c.strict.bump));
  const result: ChangeClassification = { policy, bump, strictBump, changes: sorted };
  const witness = input.witness !== undefined ? input.witness : output.witness;
  return witness === undefined ? result : { ...result, witness };
}

function outputClassification(oldSpec: ToolSpec, newSpec: ToolSpec, policy: CompatPolicy): { changes: SchemaChange[]; witness?: unknown } {
  const before = oldSpec.outputSchema;
  const after = newSpec.outputSchema;
  if (before === undefined && after === undefined) return { changes: [] };
  if (before === undefined) {
    const text = 'output schema added: results are now described where nothing was promised';
    return { changes: [change('$.outputSchema', 'output-schema-added', 'minor', text)] };
  }
  if (after === undefined) {
    const text = 'output schema removed: consumers lose every guarantee about results';
    return { changes: [change('$.outputSchema', 'output-schema-removed', 'major', text)] };
  }
  return classifyWithPrefix(before, after, 'output', '$.outputSchema', policy);
}

function fieldChanges(oldSpec: ToolSpec, newSpec: ToolSpec): SchemaChange[] {
  const out: SchemaChange[] = [];
  if (oldSpec.description !== newSpec.description) {
    out.push(change('$.description', 'description-changed', DESCRIPTION_CHANGE_BUMP, 'tool description changed: it steers tool selection'));
  }
  if (oldSpec.title !== newSpec.title) {
    out.push(change('$.title', 'title-changed', 'patch', `title changed from ${describeValue(oldSpec.title)} to ${describeValue(newSpec.title)}`));
  }
  if (oldSpec.sideEffect !== newSpec.sideEffect) out.push(sideEffectChange(oldSpec.sideEffect, newSpec.sideEffect));
  for (const field of METADATA_FIELDS) {
    if (!sameJson(oldSpec[field], newSpec[field])) {
      out.push(change(`$.${field}`, 'metadata-changed', 'patch', `${field} changed (governance metadata, not the contract)`));
    }
  }
  return out;
}

/** SIDE_EFFECTS runs from safest to least safe; moving down it breaks callers' retry and approval assumptions. */
function sideEffectChange(before: SideEffect, after: SideEffect): SchemaChange {
  const lessSafe = SIDE_EFFECTS.indexOf(after) > SIDE_EFFECTS.indexOf(before);
  const bump: Bump = lessSafe ? 'major' : 'minor';
  const why = lessSafe ? 'less safe: callers that retry or auto-approve it would now cause effects' : 'safer than before';
  return change('$.sideEffect', 'side-effect-changed', bump, `sideEffect changed from ${before} to ${after}: ${why}`);
}

/** A change outside the schemas: the policies agree on it. */
function change(path: string, kind: ChangeKind, bump: Bump, message: string): SchemaChange {
  return { path, kind, breaking: bump === 'major', bump, message, strict: { bump, breaking: bump === 'major' } };
}

function withoutVersion(spec: ToolSpec): Omit<ToolSpec, 'version'> {
  const { version: _version, ...rest } = spec;
  return rest;
}
