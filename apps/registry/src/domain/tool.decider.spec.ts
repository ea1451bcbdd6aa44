import fc from 'fast-check';
import { DESCRIPTION_CHANGE_BUMP, type Bump, type CompatPolicy, type ToolSpec } from '@estate/contracts';
import type { ServerRegisteredData } from '@estate/events';
import {
  classifierFor, compatibilityBaseline, decideTool, evolveTool, evolveToolAll, initialToolState, latestVersion, type ToolCommand, type ToolEvent, type ToolState,
} from './tool.decider';
import type { Decision } from './registry.errors';

const PAY: ServerRegisteredData = {
  name: 'pay', namespace: 'pay', transport: 'streamable-http', url: 'http://127.0.0.1:1/mcp',
  owner: 'payments-team', allowSampling: false, allowElicitation: false,
};
const BARE: ServerRegisteredData = { ...PAY, name: 'core', namespace: '' };

function spec(overrides: Partial<ToolSpec> = {}): ToolSpec {
  return {
    name: 'pay.transfer',
    version: '1.0.0',
    title: 'Transfer money',
    description: 'Moves an amount in minor units between two accounts and returns a confirmation id.',
    inputSchema: {
      type: 'object',
      properties: { amount: { type: 'integer', minimum: 1 }, currency: { enum: ['EUR', 'USD', 'GBP'] } },
      required: ['amount'],
    },
    sideEffect: 'write',
    requiredScopes: ['pay:write'],
    dataClassification: 'internal',
    tenants: [],
    owner: 'payments-team',
    upstream: { server: 'pay', tool: 'transfer' },
    ...overrides,
  };
}

const published = (s: ToolSpec): ToolEvent => ({ type: 'ToolVersionPublished', version: 1, data: { spec: s, bump: 'initial', changes: [] } });
const deprecated = (version: string): ToolEvent => ({ type: 'ToolVersionDeprecated', version: 1, data: { name: 'pay.transfer', version, reason: 'old' } });
const retired = (version: string): ToolEvent => ({ type: 'ToolVersionRetired', version: 1, data: { name: 'pay.transfer', version, reason: 'gone' } });

/** Given these past events, when this command is decided (under this ESTATE_COMPAT policy, standard by default), then… */
function given(...events: ToolEvent[]): { when(command: ToolCommand, policy?: CompatPolicy): Decision<ToolEvent> } {
  const state = events.reduce(evolveTool, initialToolState());
  return { when: (command, policy) => decideTool(command, state, policy && classifierFor(policy)) };
}
/** `null`: no server of that name is registered. */
const publish = (input: unknown, server: ServerRegisteredData | null = PAY): ToolCommand => ({ type: 'PublishToolVersion', spec: input, server: server ?? undefined });
const deprecate = (version: string, extra: { replacement?: string; sunsetAt?: string } = {}): ToolCommand => ({
  type: 'DeprecateToolVersion', name: 'pay.transfer', version, reason: 'superseded', ...extra,
});
const retire = (version: string): ToolCommand => ({ type: 'RetireToolVersion', name: 'pay.transfer', version, reason: 'sunset passed' });
const quarantine = (version: string): ToolCommand => ({ type: 'QuarantineToolVersion', name: 'pay.transfer', version, reason: 'upstream lies' });

function refusal(decision: Decision<ToolEvent>) {
  if (decision.ok) throw new Error(`expected a refusal, got ${JSON.stringify(decision.events)}`);
  return decision.error;
}
function accepted(decision: Decision<ToolEvent>): ToolEvent[] {
  if (!decision.ok) throw new Error(`expected acceptance, got ${decision.error.code}: ${decision.error.message}`);
  return decision.events;
}

describe('publishing a tool version', () => {
  it('refuses a malformed spec listing every issue with its path, sorted', () => {
    const { description: _d, ...rest } = spec();
    const error = refusal(given().when(publish({ ...rest, version: 'v1', sideEffect: 'sometimes', required_scopes: [] })));
    expect(error.code).toBe('INVALID_SPEC');
    const paths = (error.details as { issues: Array<{ path: string }> }).issues.map((i) => i.path);
    expect(paths).toEqual(['$.description', '$.required_scopes', '$.sideEffect', '$.version']);
  });

  it('refuses build metadata, which takes no part in precedence, naming the version to publish instead', () => {
    const error = refusal(given().when(publish(spec({ version: '1.1.0+build.5' }))));
    expect(error).toMatchObject({ code: 'INVALID_SPEC', details: { issues: [expect.objectContaining({ path: '$.version', code: 'build_metadata', message: expect.stringContaining('publish 1.1.0') })] } });
  });

  it('refuses a spec whose upstream server is not registered', () => {
    expect(refusal(given().when(publish(spec(), null))).code).toBe('SERVER_NOT_FOUND');
  });

  it('refuses a spec that breaks the publishing rules, naming each rule and path', () => {
    const error = refusal(given().when(publish(spec({ inputSchema: { type: 'array' } }))));
    expect(error.code).toBe('CONTRACT_REJECTED');
    expect(error.details).toEqual({ issues: [expect.objectContaining({ path: '$.inputSchema.type', code: 'root_not_object' })] });
  });

  it.each([
    ['a NUL in the description', spec({ description: 'a\u0000b' }), '$.description'],
    ['a lone surrogate in a schema key', spec({ inputSchema: { type: 'object', properties: { 'x\udc00': { type: 'string' } } } }), '$.inputSchema.properties["x\\udc00"]'],
  ])('refuses %s, which no store can keep, with its path', (_, input, path) => {
    const error = refusal(given().when(publish(input)));
    expect(error.code).toBe('CONTRACT_REJECTED');
    expect(error.details).toEqual({ issues: [expect.objectContaining({ path, code: 'unstorable_text' })] });
  });

  it('refuses a name outside the server namespace and an upstream that is not the owning server', () => {
    const error = refusal(given().when(publish(spec({ name: 'crm.transfer', upstream: { server: 'crm', tool: 'transfer' } }))));
    expect(error.code).toBe('CONTRACT_REJECTED');
    const issues = (error.details as { issues: Array<{ path: string; code: string }> }).issues;
    expect(issues.map((i) => [i.path, i.code])).toEqual([['$.name', 'namespace_mismatch'], ['$.upstream.server', 'upstream_mismatch']]);
  });

  it('lets a server with an empty namespace publish a bare name', () => {
    const events = accepted(given().when(publish(spec({ name: 'transfer', upstream: { server: 'core', tool: 'transfer' } }), BARE)));
    expect(events).toHaveLength(1);
  });

  it('refuses a version that would move a tool to another server, even under a bare-name server', () => {
    // pay.transfer 1.0.0 is served by "pay"; "core" (empty namespace) accepts any name, so only this rule stops the move.
    const moved = spec({ version: '1.0.1', upstream: { server: 'core', tool: 'steal' } });
    const error = refusal(given(published(spec())).when(publish(moved, BARE)));
    expect(error.code).toBe('CONTRACT_REJECTED');
    expect((error.details as { issues: unknown[] }).issues).toEqual([
      expect.objectContaining({ path: '$.upstream.server', code: 'upstream_moved', message: expect.stringContaining('served by "pay"') }),
    ]);
    // Another upstream tool on the same server is still a new version of the same tool.
    expect(accepted(given(published(spec())).when(publish(spec({ version: '1.0.1', upstream: { server: 'pay', tool: 'transfer_v2' } }))))).toHaveLength(1);
  });

  it("records the first version as an 'initial' publish with no changes", () => {
    expect(accepted(given().when(publish(spec())))).toEqual([
      { type: 'ToolVersionPublished', version: 1, data: { spec: spec(), bump: 'initial', changes: [] } },
    ]);
  });

  it('refuses to republish a version, even an identical one (versions are immutable)', () => {
    const error = refusal(given(published(spec())).when(publish(spec())));
    expect(error).toMatchObject({ code: 'VERSION_ALREADY_PUBLISHED', message: expect.stringContaining('pay.transfer@1.0.0') });
  });

  it('refuses a version not newer than the latest, whatever that version’s status', () => {
    expect(refusal(given(published(spec({ version: '1.2.0' }))).when(publish(spec({ version: '1.1.9' })))).code).toBe('VERSION_NOT_NEWER');
    const history = [published(spec()), published(spec({ version: '2.0.0' })), retired('2.0.0')];
    expect(refusal(given(...history).when(publish(spec({ version: '1.5.0' })))).code).toBe('VERSION_NOT_NEWER');
  });

  it('refuses a bump smaller than the change needs, with each breaking change, its path and a witness', () => {
    const narrower = spec({
      version: '1.1.0',
      inputSchema: { type: 'object', properties: { amount: { type: 'integer', minimum: 1 }, currency: { enum: ['EUR', 'USD'] } }, required: ['amount'] },
    });
    const error = refusal(given(published(spec())).when(publish(narrower)));
    expect(error.code).toBe('BUMP_TOO_SMALL');
    const details = error.details as { required: Bump; declared: Bump; changes: Array<{ path: string; breaking: boolean }>; witness?: unknown };
    expect(details).toMatchObject({ required: 'major', declared: 'minor' });
    expect(details.changes.filter((c) => c.breaking).map((c) => c.path)).toEqual(['$.inputSchema.properties.currency.enum']);
    // The witness is a concrete input the old version took and the new one refuses.
    expect(details.witness).toMatchObject({ currency: 'GBP' });
  });

  it('refuses a patch for an added required property, accepts the same change as a major', () => {
    const stricter = (version: string) => spec({
      version,
      inputSchema: { ...spec().inputSchema, properties: { ...(spec().inputSchema.properties as object), memo: { type: 'string' } }, required: ['amount', 'memo'] },
    });
    const error = refusal(given(published(spec())).when(publish(stricter('1.0.1'))));
    expect(error.details).toMatchObject({ required: 'major', declared: 'patch' });
    const [event] = accepted(given(published(spec())).when(publish(stricter('2.0.0'))));
    expect(event).toMatchObject({ data: { bump: 'major', changes: [expect.objectContaining({ path: '$.inputSchema.properties.memo', breaking: true })] } });
  });

  it.each([
    ['an added optional property', { inputSchema: { ...spec().inputSchema, properties: { ...(spec().inputSchema.properties as object), memo: { type: 'string' } } } }, '1.1.0', 'minor'],
    ['a new title', { title: 'Move money' }, '1.0.1', 'patch'],
    ['a larger bump than needed', { title: 'Move money' }, '2.0.0', 'patch'],
  ] as const)('accepts %s with a sufficient bump and records the bump the change needs', (_what, overrides, version, bump) => {
    const [event] = accepted(given(published(spec())).when(publish(spec({ ...overrides, version }))));
    expect(event).toMatchObject({ type: 'ToolVersionPublished', data: { bump, spec: { version } } });
  });

  it('treats a description-only change as DESCRIPTION_CHANGE_BUMP: that bump passes, a smaller one does not', () => {
    const next = { patch: '1.0.1', minor: '1.1.0', major: '2.0.0', none: '1.0.0-rc.1' } as const;
    const reworded = (version: string) => spec({ version, description: `${spec().description} Settles the same day.` });
    const [event] = accepted(given(published(spec())).when(publish(reworded(next[DESCRIPTION_CHANGE_BUMP]))));
    expect(event).toMatchObject({ data: { bump: DESCRIPTION_CHANGE_BUMP, changes: [expect.objectContaining({ path: '$.description' })] } });
    if (DESCRIPTION_CHANGE_BUMP !== 'patch' && DESCRIPTION_CHANGE_BUMP !== 'none') {
      expect(refusal(given(published(spec())).when(publish(reworded('1.0.1')))).code).toBe('BUMP_TOO_SMALL');
    }
  });
});

describe('publishing under each ESTATE_COMPAT policy (the spec\'s input schema is open)', () => {
  const withMemo = (version: string) => spec({ version, inputSchema: { ...spec().inputSchema, properties: { ...(spec().inputSchema.properties as object), memo: { type: 'string' } } } });

  it('standard: an optional property declared on the open schema is a minor bump', () => {
    const [event] = accepted(given(published(spec())).when(publish(withMemo('1.1.0')), 'standard'));
    expect(event).toMatchObject({ data: { bump: 'minor', changes: [expect.objectContaining({ path: '$.inputSchema.properties.memo', breaking: false })] } });
  });

  it('strict: the same change needs a major bump; the refusal names the policy and the witness', () => {
    const error = refusal(given(published(spec())).when(publish(withMemo('1.1.0')), 'strict'));
    expect(error.code).toBe('BUMP_TOO_SMALL');
    expect(error.message).toContain('ESTATE_COMPAT=strict');
    expect(error.details).toMatchObject({
      required: 'major', declared: 'minor', compat: { policy: 'strict', strictRequired: 'major' },
      changes: [expect.objectContaining({ path: '$.inputSchema.properties.memo', narrows: true, bump: 'major' })],
    });
    expect((error.details as { witness: { memo: unknown } }).witness.memo).not.toEqual(expect.any(String));
    expect(accepted(given(published(spec())).when(publish(withMemo('2.0.0')), 'strict'))[0]).toMatchObject({ data: { bump: 'major' } });
  });

  it.each(['standard', 'strict'] as const)('%s: removing a property from the open schema needs a major bump', (compat) => {
    const history = [published(spec()), published(withMemo('1.1.0'))];
    const error = refusal(given(...history).when(publish(spec({ version: '1.2.0' })), compat));
    expect(error.details).toMatchObject({ required: 'major', changes: [expect.objectContaining({ path: '$.inputSchema.properties.memo', kind: 'property-removed', breaking: true })] });
    expect(accepted(given(...history).when(publish(spec({ version: '2.0.0' })), compat))[0]).toMatchObject({ data: { bump: 'major' } });
  });
});

describe('publishing pre-releases (SemVer §9: a pre-release promises nothing)', () => {
  const narrower = (version: string) => spec({
    version,
    inputSchema: { type: 'object', properties: { amount: { type: 'integer', minimum: 1 }, currency: { enum: ['EUR', 'USD'] } }, required: ['amount'] },
  });
  const memoRequired = (base: ToolSpec) => spec({
    ...base,
    inputSchema: { ...base.inputSchema, properties: { ...(base.inputSchema.properties as object), memo: { type: 'string' } }, required: ['amount', 'memo'] },
  });
  /** Publishes each spec in turn (each must be accepted) and returns the history so made. */
  const publishedInTurn = (...specs: ToolSpec[]): ToolEvent[] =>
    specs.reduce<ToolEvent[]>((history, next) => [...history, ...accepted(given(...history).when(publish(next)))], []);
  const breakingPaths = (event: ToolEvent) => (event.type === 'ToolVersionPublished' ? event.data.changes.filter((c) => c.breaking).map((c) => c.path) : []);

  it('takes a release after its pre-release with any contract change a major allows (it was refused as a "none" bump)', () => {
    const [event] = accepted(given(published(spec()), published(spec({ version: '2.0.0-rc.1' }))).when(publish(narrower('2.0.0'))));
    expect(event).toMatchObject({ data: { bump: 'major', spec: { version: '2.0.0' } } });
    expect(breakingPaths(event)).toEqual(['$.inputSchema.properties.currency.enum']);
  });

  it('measures 1.0.0 → 2.0.0-rc.1 → 2.0.0-rc.2 → 2.0.0 each against 1.0.0, the last stable version', () => {
    const rc2 = memoRequired(narrower('2.0.0-rc.2'));
    const history = publishedInTurn(spec(), narrower('2.0.0-rc.1'), rc2, { ...rc2, version: '2.0.0', title: 'Move money' });
    expect(history.map((e) => (e.type === 'ToolVersionPublished' ? [e.data.spec.version, e.data.bump] : []))).toEqual([
      ['1.0.0', 'initial'], ['2.0.0-rc.1', 'major'], ['2.0.0-rc.2', 'major'], ['2.0.0', 'major'],
    ]);
    // rc.2 and the release list the enum narrowing rc.1 made: their changes are from 1.0.0, not from the pre-release before.
    expect(breakingPaths(history[2])).toEqual(['$.inputSchema.properties.currency.enum', '$.inputSchema.properties.memo']);
    expect(breakingPaths(history[3])).toEqual(breakingPaths(history[2]));
  });

  it('still refuses a pre-release whose declared bump is too small for its change from the last stable version', () => {
    const error = refusal(given(published(spec())).when(publish(narrower('1.1.0-rc.1'))));
    expect(error).toMatchObject({ code: 'BUMP_TOO_SMALL', message: expect.stringContaining('1.0.0 → 1.1.0-rc.1 is a minor bump but the change needs major') });
    expect(error.details).toMatchObject({ required: 'major', declared: 'minor' });
    // An earlier pre-release is no baseline: the same change after 1.1.0-rc.0 is refused just the same.
    const afterRc0 = given(published(spec()), published(narrower('1.1.0-rc.0'))).when(publish(narrower('1.1.0-rc.1')));
    expect(refusal(afterRc0).details).toMatchObject({ required: 'major', declared: 'minor' });
  });

  it('publishes as initial, with no changes, while no stable version precedes it', () => {
    const history = publishedInTurn(spec({ version: '0.1.0-alpha.1' }), narrower('0.1.0-alpha.2'), memoRequired(spec({ version: '0.1.0' })));
    expect(history.map((e) => e.type === 'ToolVersionPublished' && [e.data.bump, e.data.changes])).toEqual([['initial', []], ['initial', []], ['initial', []]]);
  });

  it('keeps refusing a version not newer than every published one, pre-release or not', () => {
    const history = [published(spec()), published(spec({ version: '2.0.0-rc.2' }))];
    for (const version of ['2.0.0-rc.1', '1.5.0', '2.0.0-beta.9']) {
      expect(refusal(given(...history).when(publish(spec({ version })))).code).toBe('VERSION_NOT_NEWER');
    }
  });

  it('guards the upstream server against the version just before, even when that is a pre-release', () => {
    const moved = spec({ version: '1.0.0', upstream: { server: 'core', tool: 'steal' } });
    const error = refusal(given(published(spec({ version: '1.0.0-rc.1' }))).when(publish(moved, BARE)));
    expect((error.details as { issues: unknown[] }).issues).toEqual([
      expect.objectContaining({ path: '$.upstream.server', code: 'upstream_moved', message: expect.stringContaining('served by "pay"') }),
    ]);
  });
});

describe('deprecating, retiring and quarantining a version', () => {
  const history = [published(spec()), published(spec({ version: '1.1.0', title: 'Move money' }))];

  it('deprecates an active version with its reason, sunset and replacement', () => {
    const events = accepted(given(...history).when(deprecate('1.0.0', { replacement: '1.1.0', sunsetAt: '2027-01-01T00:00:00.000Z' })));
    expect(events).toEqual([{
      type: 'ToolVersionDeprecated', version: 1,
      data: { name: 'pay.transfer', version: '1.0.0', reason: 'superseded', replacement: '1.1.0', sunsetAt: '2027-01-01T00:00:00.000Z' },
    }]);
  });

  it('deprecates no retired version', () => {
    expect(refusal(given(...history, retired('1.0.0')).when(deprecate('1.0.0')))).toMatchObject({
      code: 'INVALID_TRANSITION', message: 'pay.transfer@1.0.0 is retired; a retired version cannot be deprecated',
    });
  });

  it('sets the sunset of a version already deprecated, keeping the replacement it does not name, and the state follows', () => {
    const marked = accepted(given(...history).when(deprecate('1.0.0', { replacement: '1.1.0' })));
    const later = accepted(given(...history, ...marked).when(deprecate('1.0.0', { sunsetAt: '2027-01-01T00:00:00.000Z' })));
    expect(later).toEqual([{
      type: 'ToolVersionDeprecated', version: 1,
      data: { name: 'pay.transfer', version: '1.0.0', reason: 'superseded', replacement: '1.1.0', sunsetAt: '2027-01-01T00:00:00.000Z' },
    }]);
    const moved = accepted(given(...history, ...marked, ...later).when(deprecate('1.0.0', { sunsetAt: '2027-06-01T00:00:00.000Z' })));
    expect(moved[0]).toMatchObject({ data: { sunsetAt: '2027-06-01T00:00:00.000Z', replacement: '1.1.0' } });
    // The sweep retires at the sunset last set.
    expect(accepted(given(...history, ...marked, ...later, ...moved).when({ type: 'ReachSunsets', name: 'pay.transfer', now: '2027-02-01T00:00:00.000Z' }))).toEqual([]);
  });

  it('refuses a repeat deprecation that changes nothing, saying so', () => {
    const marked = accepted(given(...history).when(deprecate('1.0.0', { sunsetAt: '2027-01-01T00:00:00.000Z' })));
    expect(refusal(given(...history, ...marked).when(deprecate('1.0.0')))).toMatchObject({
      code: 'INVALID_TRANSITION', message: 'pay.transfer@1.0.0 is already deprecated with this reason, sunset date and replacement; nothing to change',
    });
    expect(accepted(given(...history, ...marked).when({ type: 'DeprecateToolVersion', name: 'pay.transfer', version: '1.0.0', reason: 'use 1.1.0 now' }))).toHaveLength(1);
  });

  it('refuses a replacement that is unpublished, retired or the version itself', () => {
    expect(refusal(given(...history).when(deprecate('1.0.0', { replacement: '3.0.0' }))).code).toBe('INVALID_REPLACEMENT');
    expect(refusal(given(...history).when(deprecate('1.0.0', { replacement: '1.0.0' }))).code).toBe('INVALID_REPLACEMENT');
    expect(refusal(given(...history, retired('1.1.0')).when(deprecate('1.0.0', { replacement: '1.1.0' }))).code).toBe('INVALID_REPLACEMENT');
  });

  it('refuses lifecycle changes to unknown tools and versions', () => {
    expect(refusal(given().when(deprecate('1.0.0'))).code).toBe('TOOL_NOT_FOUND');
    expect(refusal(given(...history).when(retire('9.9.9'))).code).toBe('VERSION_NOT_FOUND');
    expect(refusal(given().when(quarantine('1.0.0'))).code).toBe('TOOL_NOT_FOUND');
  });

  it('retires an active or deprecated version once; a second retirement is refused', () => {
    expect(accepted(given(...history).when(retire('1.0.0')))).toEqual([
      { type: 'ToolVersionRetired', version: 1, data: { name: 'pay.transfer', version: '1.0.0', reason: 'sunset passed' } },
    ]);
    expect(accepted(given(...history, deprecated('1.0.0')).when(retire('1.0.0')))).toHaveLength(1);
    expect(refusal(given(...history, retired('1.0.0')).when(retire('1.0.0'))).code).toBe('INVALID_TRANSITION');
  });

  it('quarantines once; quarantining again decides nothing new', () => {
    const [event] = accepted(given(...history).when(quarantine('1.1.0')));
    expect(event).toEqual({ type: 'ToolQuarantined', version: 1, data: { name: 'pay.transfer', version: '1.1.0', reason: 'upstream lies' } });
    expect(accepted(given(...history, event).when(quarantine('1.1.0')))).toEqual([]);
  });
});

describe('evolving tool state', () => {
  it('folds the lifecycle into per-version status and keeps the latest across statuses', () => {
    const history: ToolEvent[] = [
      published(spec()), published(spec({ version: '1.1.0' })), published(spec({ version: '2.0.0' })),
      deprecated('1.1.0'), retired('2.0.0'),
      { type: 'ToolQuarantined', version: 1, data: { name: 'pay.transfer', version: '1.0.0', reason: 'r' } },
    ];
    const state: ToolState = history.reduce(evolveTool, initialToolState());
    expect(Object.fromEntries([...state.versions].map(([v, s]) => [v, [s.status, s.quarantined]]))).toEqual({
      '1.0.0': ['active', true], '1.1.0': ['deprecated', false], '2.0.0': ['retired', false],
    });
    expect(latestVersion(state)).toBe('2.0.0');
  });

  it('does not change the state it was given', () => {
    const before = initialToolState();
    evolveTool(before, published(spec()));
    expect(before).toEqual({ versions: new Map() });
  });
});

describe('reaching a sunset date', () => {
  const v2 = spec({ version: '2.0.0', inputSchema: { type: 'object', properties: { amount: { type: 'integer', minimum: 1 } }, required: ['amount', 'currency'] } });
  const deprecatedUntil = (version: string, sunsetAt: string): ToolEvent => ({
    type: 'ToolVersionDeprecated', version: 1, data: { name: 'pay.transfer', version, reason: 'use 2.x', sunsetAt },
  });
  const sweep = (now: string): ToolCommand => ({ type: 'ReachSunsets', name: 'pay.transfer', now });

  it('retires a deprecated version whose sunset has passed, recording that the sunset was reached', () => {
    const events = accepted(given(published(spec()), published(v2), deprecatedUntil('1.0.0', '2027-01-01T00:00:00.000Z')).when(sweep('2027-01-01T00:00:00.000Z')));
    expect(events).toEqual([
      { type: 'ToolVersionSunsetReached', version: 1, data: { name: 'pay.transfer', version: '1.0.0', sunsetAt: '2027-01-01T00:00:00.000Z' } },
      { type: 'ToolVersionRetired', version: 1, data: { name: 'pay.transfer', version: '1.0.0', reason: 'sunset reached (2027-01-01T00:00:00.000Z)' } },
    ]);
  });

  it('leaves a version alone before its sunset, without a sunset, or when it is not deprecated', () => {
    expect(accepted(given(published(spec()), deprecatedUntil('1.0.0', '2027-01-01T00:00:00.000Z')).when(sweep('2026-12-31T23:59:59.999Z')))).toEqual([]);
    expect(accepted(given(published(spec()), deprecated('1.0.0')).when(sweep('2030-01-01T00:00:00.000Z')))).toEqual([]);
    expect(accepted(given(published(spec())).when(sweep('2030-01-01T00:00:00.000Z')))).toEqual([]);
  });

  it('does not retire twice: after the sweep the version is retired and a second sweep finds nothing', () => {
    const first = given(published(spec()), deprecatedUntil('1.0.0', '2027-01-01T00:00:00.000Z')).when(sweep('2027-02-01T00:00:00.000Z'));
    const events = [published(spec()), deprecatedUntil('1.0.0', '2027-01-01T00:00:00.000Z'), ...accepted(first)];
    expect(accepted(given(...events).when(sweep('2027-03-01T00:00:00.000Z')))).toEqual([]);
    expect(events.reduce(evolveTool, initialToolState()).versions.get('1.0.0')?.status).toBe('retired');
  });
});

describe('the newest version of a folded state', () => {
  it('is the highest semver after every event, whatever order history published them in', () => {
    const published = (version: string): ToolEvent => ({ type: 'ToolVersionPublished', version: 1, data: { spec: spec({ version }), bump: 'minor', changes: [] } });
    const history: ToolEvent[] = [
      published('1.2.0'), published('1.10.0'), published('1.9.0'),
      { type: 'ToolVersionDeprecated', version: 1, data: { name: 'pay.transfer', version: '1.10.0', reason: 'old' } },
      published('2.0.0-beta.1'), published('2.0.0'),
      { type: 'ToolVersionRetired', version: 1, data: { name: 'pay.transfer', version: '2.0.0', reason: 'gone' } },
    ];
    const seen: Array<string | undefined> = [];
    history.reduce((state, event) => {
      const next = evolveTool(state, event);
      seen.push(latestVersion(next));
      return next;
    }, initialToolState());
    expect(seen).toEqual(['1.2.0', '1.10.0', '1.10.0', '1.10.0', '2.0.0-beta.1', '2.0.0', '2.0.0']);
    // A state built without evolve (deserialised, say) is answered by looking at every version.
    expect(latestVersion({ versions: new Map([['0.9.0', { spec: spec({ version: '0.9.0' }), status: 'active', quarantined: false }]]) })).toBe('0.9.0');
  });

  it('measures compatibility from the newest stable version below, whatever its status, skipping pre-releases', () => {
    const published = (version: string): ToolEvent => ({ type: 'ToolVersionPublished', version: 1, data: { spec: spec({ version }), bump: 'minor', changes: [] } });
    const state = evolveToolAll(initialToolState(), [published('1.0.0'), published('1.10.0'), deprecated('1.10.0'), published('2.0.0-beta.1'), published('2.0.0'), retired('2.0.0')]);
    expect(['3.0.0-rc.1', '2.0.0', '2.0.0-beta.1', '1.10.0', '1.0.0'].map((v) => compatibilityBaseline(state, v))).toEqual(['2.0.0', '1.10.0', '1.10.0', '1.0.0', undefined]);
    expect(compatibilityBaseline(evolveToolAll(initialToolState(), [published('1.0.0-rc.1')]), '1.0.0')).toBeUndefined();
  });
});

describe('evolveToolAll', () => {
  const version = fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 12 }), fc.constantFrom('', '-beta.1')).map(([major, minor, pre]) => `${major}.${minor}.0${pre}`);
  const event: fc.Arbitrary<ToolEvent> = fc.oneof(
    version.map((v) => published(spec({ version: v }))),
    version.map((v) => deprecated(v)),
    version.map((v) => retired(v)),
    version.map((v): ToolEvent => ({ type: 'ToolQuarantined', version: 1, data: { name: 'pay.transfer', version: v, reason: 'drift' } })),
  );
  /** What a history does to the versions, written plainly: one change per event, on a copy. */
  function reference(from: ToolState, events: ToolEvent[]): Map<string, unknown> {
    const versions = new Map<string, unknown>(from.versions);
    for (const e of events) {
      if (e.type === 'ToolVersionPublished') versions.set(e.data.spec.version, { spec: e.data.spec, status: 'active', quarantined: false });
      if (e.type === 'ToolVersionDeprecated') {
        const { reason, sunsetAt, replacement } = e.data;
        versions.set(e.data.version, { ...(versions.get(e.data.version) as object), status: 'deprecated', reason, sunsetAt, replacement });
      }
      if (e.type === 'ToolVersionRetired') versions.set(e.data.version, { ...(versions.get(e.data.version) as object), status: 'retired' });
      if (e.type === 'ToolQuarantined') versions.set(e.data.version, { ...(versions.get(e.data.version) as object), quarantined: true });
    }
    return versions;
  }

  it('folds any history, from any earlier state, to the versions and the newest version the history gives', () => {
    fc.assert(fc.property(fc.array(event, { maxLength: 12 }), fc.array(event, { maxLength: 12 }), fc.boolean(), (before, after, rebuilt) => {
      const start = evolveToolAll(initialToolState(), before);
      // A start whose newest version no evolve computed (deserialised, say) must be answered alike.
      const from: ToolState = rebuilt ? { versions: new Map(start.versions) } : start;
      const kept = [...from.versions];
      const folded = evolveToolAll(from, after);
      expect([...folded.versions]).toEqual([...reference(from, after)]);
      // The newest as evolve carried it, against the newest found by sorting every version of a fresh copy.
      expect(latestVersion(folded)).toBe(latestVersion({ versions: new Map(folded.versions) }));
      expect(compatibilityBaseline(folded, '9.0.0')).toBe(compatibilityBaseline({ versions: new Map(folded.versions) }, '9.0.0'));
      expect(evolveToolAll(from, after.slice(0, 1))).toEqual(after.length > 0 ? evolveTool(from, after[0]) : from);
      expect([...from.versions]).toEqual(kept); // the state folded from is left as it was
    }), { numRuns: 500 });
  });
});
