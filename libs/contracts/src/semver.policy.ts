import { SemVer, compare, rcompare, satisfies as rangeSatisfies, validRange } from 'semver';
import { ContractIssue, Result, fail, ok } from './contract.types';

export type Bump = 'major' | 'minor' | 'patch' | 'none';
export type VersionStatus = 'active' | 'deprecated' | 'retired';

export interface VersionCandidate {
  version: string;
  status: VersionStatus;
}

export const BUMP_RANK: Readonly<Record<Bump, number>> = Object.freeze({
  none: 0,
  patch: 1,
  minor: 2,
  major: 3,
});

/** The SemVer 2.0.0 grammar exactly: no `v`, no `=`, no padding, no leading zeros. */
const STRICT_SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
const COMPARATOR = /^(\^|~|>=|<=|>|<|=)?(.+)$/;

export function isStrictVersion(text: unknown): text is string {
  return typeof text === 'string' && STRICT_SEMVER.test(text) && safeParse(text) !== undefined;
}

/** Accepts a version only in the exact SemVer 2.0.0 form; returns it unchanged. */
export function parseVersion(text: unknown): Result<string, ContractIssue> {
  if (isStrictVersion(text)) return ok(text);
  return fail({
    path: '$',
    code: 'invalid_version',
    message: `${typeof text === 'string' ? JSON.stringify(text) : typeof text} is not a SemVer 2.0.0 version (MAJOR.MINOR.PATCH, no prefix)`,
  });
}

/**
 * A constraint is one or more `||` alternatives, each a space-separated list of
 * comparators (`^1.2.0`, `~1.2.0`, `1.2.0`, `=1.2.0`, `>=1.2.0 <2.0.0`) over strict
 * versions. Wildcards, partial versions and hyphen ranges are refused on purpose.
 */
export function isValidConstraint(constraint: unknown): constraint is string {
  if (typeof constraint !== 'string' || constraint.trim() === '') return false;
  const alternatives = constraint.split('||').map((a) => a.trim());
  if (alternatives.some((a) => a === '')) return false;
  const comparatorsOk = alternatives.every((alternative) =>
    alternative.split(/\s+/).every((token) => {
      const match = COMPARATOR.exec(token);
      return match !== null && isStrictVersion(match[2]);
    }),
  );
  return comparatorsOk && validRange(constraint) !== null;
}

/** Whether a version meets a constraint; invalid input on either side never matches. */
export function satisfies(version: string, constraint: string): boolean {
  if (!isStrictVersion(version) || !isValidConstraint(constraint)) return false;
  return rangeSatisfies(version, constraint);
}

/**
 * The size of the step from `older` to `newer`, read from MAJOR.MINOR.PATCH alone:
 * the first component that differs names the bump; equal cores (including a move between
 * pre-releases of one version) are `none`, as is anything unparsable.
 */
export function bumpBetween(older: string, newer: string): Bump {
  const a = isStrictVersion(older) ? safeParse(older) : undefined;
  const b = isStrictVersion(newer) ? safeParse(newer) : undefined;
  if (!a || !b) return 'none';
  if (a.major !== b.major) return 'major';
  if (a.minor !== b.minor) return 'minor';
  if (a.patch !== b.patch) return 'patch';
  return 'none';
}

export function bumpRank(bump: Bump): number {
  return BUMP_RANK[bump];
}

/**
 * Picks the version a caller gets. Without a constraint: the newest active release (a
 * pre-release only when no active release exists). With one: the newest active version
 * that satisfies it. A deprecated version is reachable only by an exact pin that names
 * it, which keeps a migration window open for pinned callers; retired never resolves.
 */
export function resolveVersion(
  candidates: readonly VersionCandidate[],
  constraint?: string,
): string | undefined {
  const known = candidates
    .filter((c) => isStrictVersion(c.version))
    .sort((a, b) => rcompare(a.version, b.version));
  if (constraint === undefined) return newestActive(known);
  const exact = exactPin(constraint);
  if (exact !== undefined) {
    const match = known.find((c) => compare(c.version, exact) === 0);
    return match && match.status !== 'retired' ? match.version : undefined;
  }
  return known.find((c) => c.status === 'active' && satisfies(c.version, constraint))?.version;
}

function newestActive(sortedNewestFirst: readonly VersionCandidate[]): string | undefined {
  const active = sortedNewestFirst.filter((c) => c.status === 'active');
  const release = active.find((c) => safeParse(c.version)?.prerelease.length === 0);
  return (release ?? active[0])?.version;
}

function exactPin(constraint: string): string | undefined {
  const trimmed = constraint.trim();
  const bare = trimmed.startsWith('=') ? trimmed.slice(1) : trimmed;
  return isStrictVersion(bare) ? bare : undefined;
}

function safeParse(text: string): SemVer | undefined {
  try {
    return new SemVer(text);
  } catch {
    return undefined;
  }
}
