import { bumpBetween, DEFAULT_COMPAT_POLICY, type SchemaChange } from '@estate/contracts';
import { classifierFor, compatibilityBaseline, type ClassifyChange, type ToolState, type ToolVersionState } from './tool.decider';

/**
 * What changed from the version `version` was measured against when it was published (its
 * compatibility baseline: the newest stable version below it, pre-releases skipped): the declared bump, the bump the classifier requires, every change with its path, and for a
 * breaking change the witness value the old contract accepted and the new one refuses.
 */
export interface VersionDiff {
  name: string;
  version: string;
  previous: string | null;
  declared: string | null;
  required: string | null;
  changes: SchemaChange[];
  witness?: unknown;
}

/**
 * undefined when the version was never published; a version with no stable one below it has no previous and no changes.
 * `classify` runs under the ESTATE_COMPAT in force now, which may differ from the one the version was published under.
 */
export function versionDiffFor(name: string, state: ToolState, version: string, classify: ClassifyChange = classifierFor(DEFAULT_COMPAT_POLICY)): VersionDiff | undefined {
  const current = state.versions.get(version);
  if (!current) return undefined;
  const previous = compatibilityBaseline(state, version);
  if (previous === undefined) return { name, version, previous: null, declared: null, required: null, changes: [] };
  const classification = classify((state.versions.get(previous) as ToolVersionState).spec, current.spec);
  const diff: VersionDiff = {
    name, version, previous, declared: bumpBetween(previous, version), required: classification.bump, changes: classification.changes,
  };
  if (classification.witness !== undefined) diff.witness = classification.witness;
  return diff;
}
