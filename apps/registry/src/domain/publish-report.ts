import type { CompatPolicy, SchemaChange, ToolSpec } from '@estate/contracts';
import { compatibilityBaseline, type ClassifyChange, type ToolState, type ToolVersionState } from './tool.decider';

/**
 * What publish and check answer besides the decision: the ESTATE_COMPAT policy in force, the bump
 * the strict policy would require, and every change with its own strict verdict (and, where the
 * two policies part, the `narrows` flag and its witness). A CI job can so see ahead of time what
 * a switch to strict would refuse.
 */
export interface PublishReport {
  compat: { policy: CompatPolicy; strictBump: string };
  changes: SchemaChange[];
}

/**
 * `state` as it stood before the publish, read against the same baseline the decision used (the
 * newest stable version before `spec`); with none, as for a first version, there is nothing to
 * compare with. `classify` is the one the decision ran (its policy bound in), so a cached one
 * answers the pair again for free.
 */
export function publishReport(state: ToolState, spec: ToolSpec, classify: ClassifyChange): PublishReport {
  const { policy } = classify;
  const baseline = compatibilityBaseline(state, spec.version);
  if (baseline === undefined) return { compat: { policy, strictBump: 'initial' }, changes: [] };
  const { strictBump, changes } = classify((state.versions.get(baseline) as ToolVersionState).spec, spec);
  return { compat: { policy, strictBump }, changes };
}
