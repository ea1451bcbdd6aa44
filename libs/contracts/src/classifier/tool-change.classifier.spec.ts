import Ajv2020 from 'ajv/dist/2020';
import type { ToolSpec } from '../tool-spec';
import { DESCRIPTION_CHANGE_BUMP, classifyToolChange } from './schema-change.classifier';

const ajv = new Ajv2020({ strict: false });

const spec = (patch: Partial<ToolSpec> = {}): ToolSpec => ({
  name: 'payments.lookup',
  version: '1.0.0',
  title: 'Look up a payment',
  description: 'Return the status of a wholesale payment by its reference.',
  inputSchema: { type: 'object', properties: { reference: { type: 'string', minLength: 1 } }, required: ['reference'] },
  outputSchema: { type: 'object', properties: { status: { type: 'string', enum: ['pending', 'settled'] } }, required: ['status'] },
  sideEffect: 'read',
  requiredScopes: ['payments:read'],
  dataClassification: 'confidential',
  tenants: ['wholesale'],
  owner: 'payments-team',
  upstream: { server: 'payments', tool: 'lookup' },
  ...patch,
});

describe('classifyToolChange', () => {
  it('is none for the same spec under a new version', () => {
    expect(classifyToolChange(spec(), spec({ version: '1.0.1' }))).toEqual({ policy: 'standard', bump: 'none', strictBump: 'none', changes: [] });
  });

  it('prefixes input changes with $.inputSchema and carries the input witness', () => {
    const newer = spec({ inputSchema: { type: 'object', properties: { reference: { type: 'string', minLength: 3 } }, required: ['reference'] } });
    const result = classifyToolChange(spec(), newer);
    expect(result.bump).toBe('major');
    expect(result.changes[0].path).toBe('$.inputSchema.properties.reference.minLength');
    expect(ajv.validate(spec().inputSchema, result.witness)).toBe(true);
    expect(ajv.validate(newer.inputSchema, result.witness)).toBe(false);
  });

  it('reverses the rule for the output schema', () => {
    const widened = spec({ outputSchema: { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] } });
    const result = classifyToolChange(spec(), widened);
    expect(result.bump).toBe('major');
    expect(result.changes[0]).toMatchObject({ path: '$.outputSchema.properties.status.enum', kind: 'enum-widened', breaking: true });
    expect(classifyToolChange(widened, spec()).bump).toBe('minor');
  });

  it('adding an output schema is minor, removing one is major', () => {
    const none = spec({ outputSchema: undefined });
    expect(classifyToolChange(none, spec()).changes).toEqual([expect.objectContaining({ kind: 'output-schema-added', bump: 'minor' })]);
    expect(classifyToolChange(spec(), none).bump).toBe('major');
  });

  it('a tool description change uses DESCRIPTION_CHANGE_BUMP, a title change is patch', () => {
    expect(classifyToolChange(spec(), spec({ description: 'Return a payment. Not for cards.' })).bump).toBe(DESCRIPTION_CHANGE_BUMP);
    expect(classifyToolChange(spec(), spec({ title: 'Find a payment' })).bump).toBe('patch');
  });

  it('a less safe side effect is major, a safer one minor', () => {
    expect(classifyToolChange(spec(), spec({ sideEffect: 'write' })).bump).toBe('major');
    expect(classifyToolChange(spec({ sideEffect: 'destructive' }), spec({ sideEffect: 'idempotent_write' })).bump).toBe('minor');
  });

  it('governance metadata changes are patch', () => {
    const result = classifyToolChange(spec(), spec({ requiredScopes: ['payments:read', 'payments:audit'], owner: 'treasury' }));
    expect(result.bump).toBe('patch');
    expect(result.changes.map((c) => c.path)).toEqual(['$.owner', '$.requiredScopes']);
  });

  it('sorts changes from every part by path then kind', () => {
    const newer = spec({ title: 'x', description: 'y', sideEffect: 'write', outputSchema: undefined });
    const paths = classifyToolChange(spec(), newer).changes.map((c) => c.path);
    expect(paths).toEqual(['$.description', '$.outputSchema', '$.sideEffect', '$.title']);
  });
});
