import { Range, SemVer, validRange } from 'semver';
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
  return typeof text === 'string' && strictParse(text) !== undefined;
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
  return typeof constraint === 'string' && rangeOf(constraint) !== undefined;
}

function checkConstraint(constraint: string): boolean {
  if (constraint.trim() === '') return false;
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
  const parsed = typeof version === 'string' ? strictParse(version) : undefined;
  const range = typeof constraint === 'string' ? rangeOf(constraint) : undefined;
  return parsed !== undefined && range !== undefined && range.test(parsed);
}

/**
 * The size of the step from `older` to `newer`, read from MAJOR.MINOR.PATCH alone: the first
 * component that differs names the bump, so a pre-release target counts as the release it leads
 * to (1.0.0 → 2.0.0-rc.1 is major, → 1.1.0-rc.1 minor, → 1.0.1-rc.1 patch). Equal cores
 * (including a move between pre-releases of one version) are `none`, as is anything unparsable.
 * Publish measures from a stable baseline (the registry's `compatibilityBaseline`), so `older`
 * carrying a pre-release tag only happens when asked directly.
 */
export function bumpBetween(older: string, newer: string): Bump {
  const a = typeof older === 'string' ? strictParse(older) : undefined;
  const b = typeof newer === 'string' ? strictParse(newer) : undefined;
  if (!a || !b) return 'none';
  if (a.major !== b.major) return 'major';
  if (a.minor !== b.minor) return 'minor';
  if (a.patch !== b.patch) return 'patch';
  return 'none';
}

/** A strict SemVer version without a pre-release tag (build metadata does not count): the versions that carry a compatibility promise. */
export function isStableVersion(version: unknown): version is string {
  const parsed = typeof version === 'string' ? strictParse(version) : undefined;
  return parsed !== undefined && parsed.prerelease.length === 0;
}

export function bumpRank(bump: Bump): number {
  return BUMP_RANK[bump];
}

/**
 * Picks the version a caller gets. Without a constraint: the newest active stable version; a
 * pre-release carries no compatibility promise (SemVer §9), so an unpinned caller never gets one,
 * and a tool whose only active versions are pre-releases resolves to nothing. With one: the newest
 * active version that satisfies it, pre-releases included only as node-semver admits them (an
 * exact pin, or a range naming a pre-release of the same MAJOR.MINOR.PATCH, such as
 * `^2.0.0-rc.1`). Here a deprecated version is reached only by an exact pin that names it;
 * libs/catalog's resolveForPrincipal, the one caller, adds the migration window for ranges (the
 * newest deprecated version a range admits, when it admits no active one). Retired never resolves.
 */
export function resolveVersion(
  candidates: readonly VersionCandidate[],
  constraint?: string,
): string | undefined {
  const known: ParsedCandidate[] = [];
  for (const candidate of candidates) {
    const parsed = strictParse(candidate.version);
    if (parsed) known.push({ candidate, parsed });
  }
  // Newest first; equal precedence keeps the given order (a stable sort, as rcompare gave).
  known.sort((a, b) => b.parsed.compare(a.parsed));
  if (constraint === undefined) return newestActiveStable(known);
  const exact = exactPin(constraint);
  if (exact !== undefined) {
    const match = known.find((k) => k.parsed.compare(exact) === 0)?.candidate;
    return match && match.status !== 'retired' ? match.version : undefined;
  }
  const range = rangeOf(constraint);
  if (range === undefined) return undefined;
  return known.find((k) => k.candidate.status === 'active' && range.test(k.parsed))?.candidate.version;
}

interface ParsedCandidate {
  candidate: VersionCandidate;
  parsed: SemVer;
}

function newestActiveStable(sortedNewestFirst: readonly ParsedCandidate[]): string | undefined {
  return sortedNewestFirst.find((k) => k.candidate.status === 'active' && k.parsed.prerelease.length === 0)?.candidate.version;
}

function exactPin(constraint: string): SemVer | undefined {
  const trimmed = constraint.trim();
  return strictParse(trimmed.startsWith('=') ? trimmed.slice(1) : trimmed);
}

/*
 * Versions and constraints repeat endlessly on the hot path (every tools/list resolves every
 * tool), so each text is parsed once and remembered. Only short texts are remembered, and each
 * memo is cleared when full, so hostile input can neither grow memory nor slow the common case.
 * Parsed objects never leave this module, so nothing can mutate a shared one.
 */
const MEMO_LIMIT = 4_096;
const MEMO_TEXT_LIMIT = 256;
const versions = new Map<string, SemVer | null>();
const ranges = new Map<string, Range | null>();

function remembered<T>(memo: Map<string, T | null>, text: string, compute: () => T | undefined): T | undefined {
  if (text.length > MEMO_TEXT_LIMIT) return compute();
  let hit = memo.get(text);
  if (hit === undefined) {
    hit = compute() ?? null;
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(text, hit);
  }
  return hit ?? undefined;
}

function strictParse(text: string): SemVer | undefined {
  return remembered(versions, text, () => (STRICT_SEMVER.test(text) ? safeParse(text) : undefined));
}

function rangeOf(constraint: string): Range | undefined {
  return remembered(ranges, constraint, () => (checkConstraint(constraint) ? new Range(constraint) : undefined));
}

function safeParse(text: string): SemVer | undefined {
  try {
    return new SemVer(text);
  } catch {
    return undefined;
  }
}
