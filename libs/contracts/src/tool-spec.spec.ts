import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_MEMBERS, parseToolSpec } from './tool-spec.parser';
import {
  CLASSIFICATION_RANK,
  RETRYABLE_BY_SIDE_EFFECT,
  SideEffect,
  ToolSpec,
  classificationRank,
  isRetryable,
  toMcpTool,
} from './tool-spec';

const lookupSpec: ToolSpec = {
  name: 'payments.lookup',
  version: '1.2.0',
  title: 'Look up a payment',
  description: 'Return the status and amount of a wholesale payment by its reference.',
  inputSchema: { type: 'object', required: ['reference'], properties: { reference: { type: 'string' } } },
  outputSchema: { type: 'object', properties: { status: { type: 'string' } } },
  sideEffect: 'read',
  requiredScopes: ['payments:read'],
  dataClassification: 'confidential',
  tenants: ['wholesale'],
  owner: 'payments-team',
  upstream: { server: 'payments', tool: 'lookup' },
};

describe('parseToolSpec', () => {
  it('accepts a complete spec unchanged', () => {
    expect(parseToolSpec(lookupSpec)).toEqual({ ok: true, value: lookupSpec });
  });

  it('defaults absent requiredScopes and tenants to empty lists', () => {
    const { requiredScopes: _s, tenants: _t, ...rest } = lookupSpec;
    const result = parseToolSpec(rest);
    expect(result.ok && result.value.requiredScopes).toEqual([]);
    expect(result.ok && result.value.tenants).toEqual([]);
  });

  it('requires sideEffect and gives it no default', () => {
    const { sideEffect: _ignored, ...rest } = lookupSpec;
    expect(parseToolSpec(rest)).toEqual({
      ok: false,
      error: [expect.objectContaining({ path: '$.sideEffect', code: 'required' })],
    });
  });

  it('lists every issue, sorted by path', () => {
    const result = parseToolSpec({
      name: 7,
      version: 'v1.0.0',
      description: '',
      inputSchema: 'object',
      sideEffect: 'maybe',
      requiredScopes: ['a', 3, 'a'],
      tenants: null,
      dataClassification: 'secret',
      upstream: { server: 'payments' },
      required_scopes: ['x'],
    });
    expect(result.ok ? [] : result.error.map((i) => `${i.path} ${i.code}`)).toEqual([
      '$.dataClassification enum',
      '$.description empty',
      '$.inputSchema type',
      '$.name type',
      '$.owner required',
      '$.requiredScopes[1] type',
      '$.requiredScopes[2] duplicate',
      '$.required_scopes unknown_field',
      '$.sideEffect enum',
      '$.tenants type',
      '$.upstream.tool required',
      '$.version invalid_version',
    ]);
  });

  it('refuses a schema nested deeper than the limit at the first path past it, at any depth, and takes one at the limit', () => {
    const nested = (levels: number) => {
      let schema: Record<string, unknown> = { type: 'string' };
      for (let i = 1; i < levels; i += 1) schema = i % 2 === 1 ? { p: schema } : { type: 'object', properties: schema };
      return schema;
    };
    expect(parseToolSpec({ ...lookupSpec, inputSchema: nested(MAX_SCHEMA_DEPTH) }).ok).toBe(true);
    for (const levels of [MAX_SCHEMA_DEPTH + 1, 2_000, 100_000]) {
      const parsed = parseToolSpec({ ...lookupSpec, outputSchema: nested(levels) });
      expect(parsed.ok).toBe(false);
      const issues = parsed.ok ? [] : parsed.error;
      expect(issues).toEqual([expect.objectContaining({ code: 'too_deep', path: expect.stringMatching(/^\$\.outputSchema\.(p|properties)\./) })]);
      expect(issues[0].path.split('.').length - 1).toBe(MAX_SCHEMA_DEPTH + 1);
    }
  });

  it('refuses a number too large for JSON (1e400 reads as Infinity) at its path in either schema, instead of storing it as null', () => {
    const body = JSON.parse(`{"inputSchema":{"type":"object","properties":{"note":{"type":"string","maxLength":1e400}}},
      "outputSchema":{"type":"object","properties":{"legs":{"type":"array","items":[{"minimum":-1e400}]}}}}`) as Partial<ToolSpec>;
    const parsed = parseToolSpec({ ...lookupSpec, ...body });
    expect(parsed).toEqual({
      ok: false,
      error: [
        { path: '$.inputSchema.properties.note.maxLength', code: 'not_finite', message: expect.stringContaining('reads as Infinity') },
        { path: '$.outputSchema.properties.legs.items[0].minimum', code: 'not_finite', message: expect.stringContaining('reads as -Infinity') },
      ],
    });
  });

  it('lists at most 16 numbers too large for JSON', () => {
    const properties = Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`p${i}`, { maximum: Infinity }]));
    const parsed = parseToolSpec({ ...lookupSpec, inputSchema: { type: 'object', properties } });
    expect(parsed.ok ? [] : parsed.error.map((found) => found.code)).toEqual(Array(16).fill('not_finite'));
  });

  it('refuses a schema of more members than the limit (40,000 properties) naming the limit at the schema, and takes one at the limit', () => {
    const schema = (properties: number) => ({ type: 'object', properties: Object.fromEntries(Array.from({ length: properties }, (_, i) => [`p${i}`, {}])) });
    // `type` and `properties` are two members; each property one more.
    expect(parseToolSpec({ ...lookupSpec, inputSchema: schema(MAX_SCHEMA_MEMBERS - 2) }).ok).toBe(true);
    for (const properties of [MAX_SCHEMA_MEMBERS - 1, 40_000]) {
      expect(parseToolSpec({ ...lookupSpec, inputSchema: schema(properties) })).toEqual({
        ok: false,
        error: [{ path: '$.inputSchema', code: 'too_large', message: expect.stringContaining(`more than ${MAX_SCHEMA_MEMBERS} members`) }],
      });
    }
  });

  it('counts an enum\'s values as data, not members, but a property named enum as schema', () => {
    const values = Array.from({ length: 95_000 }, (_, i) => `v${i}`);
    expect(parseToolSpec({ ...lookupSpec, inputSchema: { type: 'object', properties: { code: { enum: values, default: 'v0' } } } }).ok).toBe(true);
    const wide = Object.fromEntries(Array.from({ length: MAX_SCHEMA_MEMBERS }, (_, i) => [`p${i}`, {}]));
    expect(parseToolSpec({ ...lookupSpec, inputSchema: { type: 'object', properties: { enum: { type: 'object', properties: wide } } } })).toMatchObject({
      ok: false, error: [{ code: 'too_large' }],
    });
  });

  it('refuses build metadata in a version, naming the plain version to publish', () => {
    expect(parseToolSpec({ ...lookupSpec, version: '1.1.0+build.5' })).toEqual({
      ok: false, error: [{ path: '$.version', code: 'build_metadata', message: expect.stringContaining('publish 1.1.0') }],
    });
  });

  it('refuses something that is not an object', () => {
    expect(parseToolSpec([])).toEqual({ ok: false, error: [expect.objectContaining({ path: '$', code: 'type' })] });
  });
});

describe('side effects and classification', () => {
  it.each([
    ['read', true],
    ['idempotent_write', true],
    ['write', false],
    ['destructive', false],
  ] as const)('%s is retryable: %s', (sideEffect, expected) => {
    expect(isRetryable(sideEffect)).toBe(expected);
  });

  it('derives retry from the single mapping', () => {
    for (const sideEffect of Object.keys(RETRYABLE_BY_SIDE_EFFECT) as SideEffect[]) {
      expect(isRetryable(sideEffect)).toBe(RETRYABLE_BY_SIDE_EFFECT[sideEffect]);
    }
  });

  it('ranks public < internal < confidential < restricted', () => {
    const ranks = (['public', 'internal', 'confidential', 'restricted'] as const).map(classificationRank);
    expect(ranks).toEqual([0, 1, 2, 3]);
    expect(classificationRank('confidential')).toBe(CLASSIFICATION_RANK.confidential);
  });
});

describe('toMcpTool', () => {
  it('emits exactly the MCP keys', () => {
    expect(Object.keys(toMcpTool(lookupSpec)).sort()).toEqual(
      ['annotations', 'description', 'inputSchema', 'name', 'outputSchema', 'title'].sort(),
    );
  });

  it('omits optional keys that the spec does not have', () => {
    const { title: _t, outputSchema: _o, ...bare } = lookupSpec;
    const tool = toMcpTool(bare);
    expect(Object.keys(tool).sort()).toEqual(['annotations', 'description', 'inputSchema', 'name']);
    expect(Object.keys(tool.annotations)).not.toContain('title');
  });

  it('carries no control-plane metadata anywhere', () => {
    const text = JSON.stringify(toMcpTool(lookupSpec));
    for (const secret of ['payments:read', 'wholesale"', 'payments-team', 'confidential', '1.2.0', 'upstream', 'sideEffect']) {
      expect(text).not.toContain(secret);
    }
  });

  it.each([
    ['read', { readOnlyHint: true, destructiveHint: false, idempotentHint: true }],
    ['idempotent_write', { readOnlyHint: false, destructiveHint: false, idempotentHint: true }],
    ['write', { readOnlyHint: false, destructiveHint: false, idempotentHint: false }],
    ['destructive', { readOnlyHint: false, destructiveHint: true, idempotentHint: false }],
  ] as const)('derives annotations for %s', (sideEffect, hints) => {
    expect(toMcpTool({ ...lookupSpec, sideEffect }).annotations).toEqual({
      title: 'Look up a payment',
      ...hints,
      openWorldHint: false,
    });
  });
});
