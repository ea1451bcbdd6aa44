import { gt, lt, rcompare } from 'semver';
import {
  bumpBetween, bumpRank, classifyToolChange, isStableVersion, lintToolSpec, parseToolSpec, parseVersion, storableTextIssues,
  isVisible, DEFAULT_COMPAT_POLICY, type ChangeClassification, type CompatPolicy, type Principal, type ToolSpec, type VersionStatus,
} from '@estate/contracts';
import type {
  ServerRegisteredData, ToolQuarantined, ToolVersionSunsetReached, ToolVersionDeprecated, ToolVersionPublished, ToolVersionRetired,
} from '@estate/events';
import type { Decider } from './decider';
import { registryError, type Decision, type RegistryError } from './registry.errors';

export type ToolEvent = ToolVersionPublished | ToolVersionDeprecated | ToolVersionRetired | ToolQuarantined | ToolVersionSunsetReached;

export interface ToolVersionState {
  spec: ToolSpec;
  status: VersionStatus;
  quarantined: boolean;
  /** A deprecated version's deprecation as last recorded: a later deprecation revises it. */
  reason?: string;
  sunsetAt?: string;
  replacement?: string;
}

export interface ToolState {
  /**
   * A Map, not an object: evolve copies it on every event (states are immutable), and copying an
   * object of a few hundred keys took ~200 µs where a Map takes ~20 µs (a long-lived tool's publish).
   */
  versions: ReadonlyMap<string, ToolVersionState>;
}

export type ToolCommand =
  | { type: 'PublishToolVersion'; spec: unknown; server: ServerRegisteredData | undefined }
  | { type: 'DeprecateToolVersion'; name: string; version: string; reason: string; sunsetAt?: string; replacement?: string }
  | { type: 'RetireToolVersion'; name: string; version: string; reason: string }
  /** `viewer`: who asks, when it does not read governance (an `estate:quarantine` responder): it acts only on versions it may see. */
  | { type: 'QuarantineToolVersion'; name: string; version: string; reason: string; viewer?: Principal }
  /** Retire every deprecated version whose sunset date is at or before `now` (an ISO instant). */
  | { type: 'ReachSunsets'; name: string; now: string };

export const initialToolState = (): ToolState => ({ versions: new Map() });

export function toolStreamId(name: string): string {
  return `tool:${name}`;
}

/** The newest version of a state, and its newest stable (pre-release-free) one. */
interface Newest {
  any: string;
  stable: string | undefined;
}

/**
 * The newest versions of each `versions` object already asked about or built by evolve. Sorting
 * every version on every publish parsed each semver again: linear in the stream's length, and
 * the largest cost of the decider's own on long-lived tools (profiled). States are immutable, so
 * an answer stays true of its object; evolve passes it on to the next state in O(1).
 */
const newest = new WeakMap<ToolState['versions'], Newest>();

function newestOf(state: ToolState): Newest | undefined {
  const known = newest.get(state.versions);
  if (known !== undefined) return known;
  const sorted = [...state.versions.keys()].sort(rcompare);
  if (sorted.length === 0) return undefined;
  const found: Newest = { any: sorted[0], stable: sorted.find(isStableVersion) };
  newest.set(state.versions, found);
  return found;
}

/** Newest published version of any status: a new version must be newer than every one before it. */
export function latestVersion(state: ToolState): string | undefined {
  return newestOf(state)?.any;
}

/**
 * What `version` is measured against for compatibility: the newest stable version of any status
 * below it. A pre-release promises nothing (SemVer §9), so 1.0.0 → 2.0.0-rc.1 → 2.0.0-rc.2 → 2.0.0
 * each answer to 1.0.0; undefined (nothing promised yet) when no stable version precedes it.
 */
export function compatibilityBaseline(state: ToolState, version: string): string | undefined {
  const stable = newestOf(state)?.stable;
  if (stable === undefined || lt(stable, version)) return stable;
  return [...state.versions.keys()].filter((v) => isStableVersion(v) && lt(v, version)).sort(rcompare)[0];
}

/**
 * The schema-change classifier under one ESTATE_COMPAT policy, passed in so the composition root
 * can put a cache in front of it. The policy is bound in, not passed per call: it is fixed at
 * boot, and a cache in front of a bound classifier cannot answer under the wrong policy.
 */
export interface ClassifyChange {
  (oldSpec: ToolSpec, newSpec: ToolSpec): ChangeClassification;
  readonly policy: CompatPolicy;
}

export function classifierFor(policy: CompatPolicy, classify: typeof classifyToolChange = classifyToolChange): ClassifyChange {
  return Object.assign((oldSpec: ToolSpec, newSpec: ToolSpec) => classify(oldSpec, newSpec, policy), { policy });
}

const STANDARD = classifierFor(DEFAULT_COMPAT_POLICY);

export function decideTool(command: ToolCommand, state: ToolState, classify: ClassifyChange = STANDARD): Decision<ToolEvent> {
  switch (command.type) {
    case 'PublishToolVersion':
      return decidePublish(command.spec, command.server, state, classify);
    case 'DeprecateToolVersion':
      return decideDeprecate(command, state);
    case 'RetireToolVersion':
      return decideRetire(command, state);
    case 'QuarantineToolVersion':
      return decideQuarantine(command, state);
    case 'ReachSunsets':
      return { ok: true, events: decideSunsets(command.name, command.now, state) };
  }
}

/** The tool aggregate as the command handler runs it. */
export function toolDecider(classify: ClassifyChange = STANDARD): Decider<ToolCommand, ToolEvent, ToolState> {
  return { initialState: initialToolState, evolve: evolveTool, evolveAll: evolveToolAll, decide: (command, state) => decideTool(command, state, classify) };
}

function decidePublish(input: unknown, server: ServerRegisteredData | undefined, state: ToolState, classify: ClassifyChange): Decision<ToolEvent> {
  const unstorable = storableTextIssues(input);
  if (unstorable.length > 0) return { ok: false, error: registryError('CONTRACT_REJECTED', 'the tool spec holds text that cannot be stored', { issues: unstorable }) };
  const parsed = parseToolSpec(input);
  if (!parsed.ok) return { ok: false, error: registryError('INVALID_SPEC', 'the tool spec is malformed', { issues: parsed.error }) };
  const spec = parsed.value;
  const version = parseVersion(spec.version);
  if (!version.ok) return { ok: false, error: registryError('INVALID_SPEC', version.error.message, { issues: [version.error] }) };
  if (!server) {
    return { ok: false, error: registryError('SERVER_NOT_FOUND', `upstream server "${spec.upstream.server}" is not registered`) };
  }
  const issues = lintToolSpec(spec, { namespace: server.namespace, server: server.name });
  if (issues.length > 0) {
    return { ok: false, error: registryError('CONTRACT_REJECTED', 'the tool spec breaks publishing rules', { issues }) };
  }
  if (state.versions.has(spec.version)) {
    return {
      ok: false,
      error: registryError('VERSION_ALREADY_PUBLISHED', `${spec.name}@${spec.version} is already published; versions are immutable`),
    };
  }
  const latest = latestVersion(state);
  if (latest !== undefined && !gt(spec.version, latest)) {
    return {
      ok: false,
      error: registryError('VERSION_NOT_NEWER', `${spec.version} is not newer than the latest published version ${latest}`),
    };
  }
  const moved = latest === undefined ? undefined : upstreamMoved(spec, (state.versions.get(latest) as ToolVersionState).spec);
  if (moved) return { ok: false, error: moved };
  const baseline = compatibilityBaseline(state, spec.version);
  if (baseline === undefined) {
    return { ok: true, events: [{ type: 'ToolVersionPublished', version: 1, data: { spec, bump: 'initial', changes: [] } }] };
  }
  const classification = classify((state.versions.get(baseline) as ToolVersionState).spec, spec);
  const declared = bumpBetween(baseline, spec.version);
  const changes = classification.changes.map(({ path, kind, breaking, message }) => ({ path, kind, breaking, message }));
  if (bumpRank(declared) < bumpRank(classification.bump)) {
    const { policy, strictBump, changes: detailed, witness } = classification;
    return {
      ok: false,
      error: registryError(
        'BUMP_TOO_SMALL',
        `${baseline} → ${spec.version} is a ${declared} bump but the change needs ${classification.bump} (ESTATE_COMPAT=${policy})`,
        { required: classification.bump, declared, compat: { policy, strictRequired: strictBump }, changes: detailed, witness },
      ),
    };
  }
  return { ok: true, events: [{ type: 'ToolVersionPublished', version: 1, data: { spec, bump: classification.bump, changes } }] };
}

/**
 * Every version of a tool is reached through the one server it was first published on: a version
 * routed elsewhere would take the tool's name, callers and pins to another upstream. Checked
 * against the version just before, pre-release or not: the server is a fact, not a promise.
 */
function upstreamMoved(spec: ToolSpec, previous: ToolSpec): RegistryError | undefined {
  if (spec.upstream.server === previous.upstream.server) return undefined;
  return registryError('CONTRACT_REJECTED', 'the tool spec breaks publishing rules', {
    issues: [{ path: '$.upstream.server', code: 'upstream_moved', message: `${spec.name} is served by "${previous.upstream.server}"; a version cannot move it to "${spec.upstream.server}" (publish it under a new name)` }],
  });
}

/**
 * The version a lifecycle command names. With a `viewer`, versions it may not see do not exist for
 * it, and a tool it may see no version of is answered exactly as a tool never published.
 */
function findVersion(state: ToolState, name: string, version: string, viewer?: Principal): ToolVersionState | { error: ReturnType<typeof registryError> } {
  const seen = (v: ToolVersionState) => viewer === undefined || isVisible(viewer, v.spec);
  if (![...state.versions.values()].some(seen)) return { error: registryError('TOOL_NOT_FOUND', `tool "${name}" is not published`) };
  const found = state.versions.get(version);
  return found && seen(found) ? found : { error: registryError('VERSION_NOT_FOUND', `${name}@${version} is not published`) };
}

/**
 * Deprecates an active version, or revises a deprecated one's deprecation: the owner marks it
 * first, learns its callers, then sets (or moves) the sunset date. A revision keeps what it does
 * not name, so its event carries the whole deprecation and every projection just applies it.
 */
function decideDeprecate(command: Extract<ToolCommand, { type: 'DeprecateToolVersion' }>, state: ToolState): Decision<ToolEvent> {
  const found = findVersion(state, command.name, command.version);
  if ('error' in found) return { ok: false, error: found.error };
  const { type: _type, ...asked } = command;
  if (found.status === 'retired') {
    return { ok: false, error: registryError('INVALID_TRANSITION', `${command.name}@${command.version} is retired; a retired version cannot be deprecated`) };
  }
  const data = found.status === 'deprecated' ? revisedDeprecation(asked, found) : asked;
  if (found.status === 'deprecated' && data.reason === found.reason && data.sunsetAt === found.sunsetAt && data.replacement === found.replacement) {
    return { ok: false, error: registryError('INVALID_TRANSITION', `${command.name}@${command.version} is already deprecated with this reason, sunset date and replacement; nothing to change`) };
  }
  const replacementProblem = checkReplacement(state, command.version, command.replacement);
  if (replacementProblem) return { ok: false, error: registryError('INVALID_REPLACEMENT', replacementProblem) };
  return { ok: true, events: [{ type: 'ToolVersionDeprecated', version: 1, data }] };
}

function revisedDeprecation(asked: ToolVersionDeprecated['data'], current: ToolVersionState): ToolVersionDeprecated['data'] {
  const sunsetAt = asked.sunsetAt ?? current.sunsetAt;
  const replacement = asked.replacement ?? current.replacement;
  return { name: asked.name, version: asked.version, reason: asked.reason, ...(sunsetAt ? { sunsetAt } : {}), ...(replacement ? { replacement } : {}) };
}

/**
 * Callers are pointed at the replacement: it has to be another version they can reach and stay on,
 * active and not quarantined (a deprecated one would send them on again, or in a circle). It may
 * be older: rolling back from a broken release is a replacement too.
 */
function checkReplacement(state: ToolState, version: string, replacement: string | undefined): string | undefined {
  if (replacement === undefined) return undefined;
  const found = state.versions.get(replacement);
  if (!found) return `replacement ${replacement} is not a published version`;
  if (replacement === version) return 'a version cannot be its own replacement';
  if (found.status !== 'active') return `replacement ${replacement} is ${found.status}; name an active version`;
  if (found.quarantined) return `replacement ${replacement} is quarantined; name an active version`;
  return undefined;
}

function decideRetire(command: Extract<ToolCommand, { type: 'RetireToolVersion' }>, state: ToolState): Decision<ToolEvent> {
  const found = findVersion(state, command.name, command.version);
  if ('error' in found) return { ok: false, error: found.error };
  if (found.status === 'retired') {
    return { ok: false, error: registryError('INVALID_TRANSITION', `${command.name}@${command.version} is already retired`) };
  }
  const { name, version, reason } = command;
  return { ok: true, events: [{ type: 'ToolVersionRetired', version: 1, data: { name, version, reason } }] };
}

function decideQuarantine(command: Extract<ToolCommand, { type: 'QuarantineToolVersion' }>, state: ToolState): Decision<ToolEvent> {
  const found = findVersion(state, command.name, command.version, command.viewer);
  if ('error' in found) return { ok: false, error: found.error };
  if (found.quarantined) return { ok: true, events: [] };
  const { name, version, reason } = command;
  return { ok: true, events: [{ type: 'ToolQuarantined', version: 1, data: { name, version, reason } }] };
}

/** A deprecation's sunset date is a promise: when it passes, the version retires, saying why. */
function decideSunsets(name: string, now: string, state: ToolState): ToolEvent[] {
  const due = [...state.versions].filter(
    ([, v]) => v.status === 'deprecated' && v.sunsetAt !== undefined && Date.parse(v.sunsetAt) <= Date.parse(now),
  );
  return due.flatMap(([version, v]): ToolEvent[] => [
    { type: 'ToolVersionSunsetReached', version: 1, data: { name, version, sunsetAt: v.sunsetAt as string } },
    { type: 'ToolVersionRetired', version: 1, data: { name, version, reason: `sunset reached (${v.sunsetAt})` } },
  ]);
}

export function evolveTool(state: ToolState, event: ToolEvent): ToolState {
  return evolveToolAll(state, [event]);
}

/**
 * `state` after `events`, in one copy of its versions map. Evolving one event at a time copied
 * the map per event, so folding a tool's history was quadratic in its length: a cold load of a
 * tool with 10,000 versions took 8 s (bench/tool-fold.quick.ts).
 */
export function evolveToolAll(state: ToolState, events: readonly ToolEvent[]): ToolState {
  const versions = new Map(state.versions);
  // The newest versions, carried along while they are known (see `newest`); undefined and known means no version yet.
  const carried = newest.get(state.versions);
  let latest = carried?.any;
  let stable = carried?.stable;
  let known = carried !== undefined || state.versions.size === 0;
  // A change to a version the stream never published keeps an entry of the change alone, as the object spread did.
  const at = (version: string) => versions.get(version) as ToolVersionState;
  for (const event of events) {
    if (event.type === 'ToolVersionPublished') {
      const added = event.data.spec.version;
      versions.set(added, { spec: event.data.spec, status: 'active', quarantined: false });
      if (known) {
        latest = latest === undefined || gt(added, latest) ? added : latest;
        stable = isStableVersion(added) && (stable === undefined || gt(added, stable)) ? added : stable;
      }
      continue;
    }
    // Deprecations and retirements keep the set of versions, so the newest stays the newest,
    // unless one names a version never published: it joins the set, and the newest is found again when asked.
    if ('version' in event.data && !versions.has(event.data.version)) known = false;
    switch (event.type) {
      case 'ToolVersionDeprecated':
        versions.set(event.data.version, {
          ...at(event.data.version), status: 'deprecated', reason: event.data.reason, sunsetAt: event.data.sunsetAt, replacement: event.data.replacement,
        });
        break;
      case 'ToolVersionRetired':
        versions.set(event.data.version, { ...at(event.data.version), status: 'retired' });
        break;
      case 'ToolQuarantined':
        versions.set(event.data.version, { ...at(event.data.version), quarantined: true });
        break;
      case 'ToolVersionSunsetReached':
        break;
    }
  }
  if (known && latest !== undefined) newest.set(versions, { any: latest, stable });
  return { versions };
}
