import { comparePaths, compareText } from '../json-path.util';
import { Bump, bumpRank } from '../semver.policy';
import { DESCRIPTION_CHANGE_BUMP } from './classifier.types';
import type { DetectedChange, SchemaChange } from './classifier.types';

/**
 * `input`: callers send values, so a stricter schema breaks them.
 * `output`: consumers receive values, so a looser schema breaks them (the rule reversed).
 */
export type Direction = 'input' | 'output';

export function bumpFor(change: Pick<DetectedChange, 'kind' | 'effect'>, direction: Direction): Bump {
  switch (change.effect) {
    case 'neutral':
      return change.kind === 'description-changed' ? DESCRIPTION_CHANGE_BUMP : 'patch';
    case 'compatible':
      return 'minor';
    case 'both':
      return 'major';
    case 'narrower':
      return direction === 'input' ? 'major' : 'minor';
    case 'wider':
      return direction === 'input' ? 'minor' : 'major';
  }
}

const OUTPUT_NOTES: Partial<Record<DetectedChange['effect'], string>> = {
  narrower: ' (output: consumers still receive only values they knew)',
  wider: ' (output: consumers may receive values they did not expect)',
};

/**
 * The public form of a change; `prefix` replaces the leading `$` (e.g. `$.inputSchema`). Its
 * `strict` verdict is its own bump: the caller replaces it when the walk ran under `standard`.
 */
export function toSchemaChange(change: DetectedChange, direction: Direction, prefix = '$'): SchemaChange {
  const bump = bumpFor(change, direction);
  const note = direction === 'output' ? (OUTPUT_NOTES[change.effect] ?? '') : '';
  return {
    path: prefix + change.path.slice(1),
    kind: change.kind,
    breaking: bump === 'major',
    bump,
    message: change.message + note,
    strict: { bump, breaking: bump === 'major' },
  };
}

export function maxBump(bumps: Iterable<Bump>): Bump {
  let result: Bump = 'none';
  for (const bump of bumps) if (bumpRank(bump) > bumpRank(result)) result = bump;
  return result;
}

export function sortChanges(changes: SchemaChange[]): SchemaChange[] {
  return [...changes].sort((a, b) => comparePaths(a.path, b.path) || compareText(a.kind, b.kind) || compareText(a.message, b.message));
}

/** Does this change break the side that must keep working (callers or consumers)? */
export function isBreaking(change: Pick<DetectedChange, 'kind' | 'effect'>, direction: Direction): boolean {
  return bumpFor(change, direction) === 'major';
}
