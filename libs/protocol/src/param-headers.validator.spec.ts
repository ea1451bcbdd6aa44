import { checkParamHeaders, paramHeadersOf, type ParamHeader } from './param-headers.validator';

const sqlTool = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    query: { type: 'string' },
    limits: { type: 'object', properties: { rows: { type: 'integer', 'x-mcp-header': 'Rows' }, dryRun: { type: 'boolean', 'x-mcp-header': 'Dry-Run' } } },
  },
  required: ['region', 'query'],
};

describe('paramHeadersOf — x-mcp-header in a tool inputSchema', () => {
  it('finds every annotation reached through properties, nested ones included', () => {
    expect(paramHeadersOf(sqlTool)).toEqual({
      ok: true,
      headers: [
        { name: 'Region', path: ['region'], type: 'string' },
        { name: 'Rows', path: ['limits', 'rows'], type: 'integer' },
        { name: 'Dry-Run', path: ['limits', 'dryRun'], type: 'boolean' },
      ],
    });
  });

  it('declares nothing for a schema without the keyword, or an argument merely named x-mcp-header', () => {
    expect(paramHeadersOf({ type: 'object', properties: { q: { type: 'string' } } })).toEqual({ ok: true, headers: [] });
    expect(paramHeadersOf({ type: 'object', properties: { 'x-mcp-header': { type: 'string' } } })).toEqual({ ok: true, headers: [] });
    expect(paramHeadersOf(undefined)).toEqual({ ok: true, headers: [] });
  });

  it.each<[string, unknown, string]>([
    ['an empty name', { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': '' } } }, 'x-mcp-header on a must be a non-empty header-name token'],
    ['a name with a space', { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'My Header' } } }, 'x-mcp-header on a must be a non-empty header-name token'],
    ['a name with a line break', { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'A\r\nB' } } }, 'x-mcp-header on a must be a non-empty header-name token'],
    ['a number property', { type: 'object', properties: { a: { type: 'number', 'x-mcp-header': 'A' } } }, 'x-mcp-header on a needs type string, integer or boolean (number is not allowed)'],
    ['an object property', { type: 'object', properties: { a: { type: 'object', 'x-mcp-header': 'A' } } }, 'x-mcp-header on a needs type string, integer or boolean (number is not allowed)'],
    ['a name used twice in another case', { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'REGION' } } }, 'x-mcp-header value "REGION" is used twice (names compare without case)'],
    ['an annotation under items', { type: 'object', properties: { list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } } }, 'x-mcp-header at inputSchema.properties.list.items is not reached from the root through properties alone'],
    ['an annotation under anyOf', { type: 'object', anyOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] }, 'x-mcp-header at inputSchema.anyOf[0].properties.a is not reached from the root through properties alone'],
    ['an annotation in $defs', { type: 'object', properties: { a: { $ref: '#/$defs/r' } }, $defs: { r: { type: 'string', 'x-mcp-header': 'R' } } }, 'x-mcp-header at inputSchema.$defs.r is not reached from the root through properties alone'],
    ['an annotation on the root', { type: 'string', 'x-mcp-header': 'Root' }, 'x-mcp-header at inputSchema is not reached from the root through properties alone'],
  ])('rejects the tool for %s', (_case, schema, reason) => {
    expect(paramHeadersOf(schema)).toEqual({ ok: false, reason });
  });
});

describe('checkParamHeaders', () => {
  const declared = (paramHeadersOf(sqlTool) as { headers: readonly ParamHeader[] }).headers;
  const args = { region: 'eu-north-1', query: 'select 1', limits: { rows: 42, dryRun: false } };
  // Node hands header names over in lowercase.
  const good = { 'mcp-param-region': 'eu-north-1', 'mcp-param-rows': '42', 'mcp-param-dry-run': 'false' };

  it('accepts headers that mirror the arguments, and ignores undeclared Mcp-Param headers', () => {
    expect(checkParamHeaders({ ...good, 'mcp-param-other': 'x' }, declared, args)).toBeNull();
  });

  it('finds the headers whatever the case of their names', () => {
    expect(checkParamHeaders({ 'Mcp-Param-Region': 'eu-north-1', 'MCP-PARAM-ROWS': '42', 'mcp-param-dry-run': 'false' }, declared, args)).toBeNull();
  });

  it('compares integers as numbers', () => {
    expect(checkParamHeaders({ ...good, 'mcp-param-rows': '42.0' }, declared, args)).toBeNull();
  });

  it('decodes a Base64-marked value before comparing', () => {
    const region = 'région';
    const headers = { ...good, 'mcp-param-region': `=?base64?${Buffer.from(region).toString('base64')}?=` };
    expect(checkParamHeaders(headers, declared, { ...args, region })).toBeNull();
  });

  it('expects no header for an argument that is absent or null', () => {
    expect(checkParamHeaders({ 'mcp-param-region': 'eu-north-1' }, declared, { region: 'eu-north-1', limits: { rows: null } })).toBeNull();
  });

  it.each<[string, Record<string, string | string[]>, unknown, string]>([
    ['a missing header for a value in the body', { 'mcp-param-rows': '42', 'mcp-param-dry-run': 'false' }, args, 'Header mismatch: required header Mcp-Param-Region is missing for params.arguments.region'],
    ['a header for a value the body lacks', { 'mcp-param-region': 'eu-north-1', 'mcp-param-rows': '1' }, { region: 'eu-north-1' }, 'Header mismatch: Mcp-Param-Rows header is sent but params.arguments.limits.rows has no value'],
    ['a region routed elsewhere', { ...good, 'mcp-param-region': 'us-east-1' }, args, 'Header mismatch: Mcp-Param-Region header value "us-east-1" does not match body value "\\"eu-north-1\\"" at params.arguments.region'],
    ['another number', { ...good, 'mcp-param-rows': '43' }, args, 'Header mismatch: Mcp-Param-Rows header value "43" does not match body value "42" at params.arguments.limits.rows'],
    ['a boolean in another case', { ...good, 'mcp-param-dry-run': 'False' }, args, 'Header mismatch: Mcp-Param-Dry-Run header value "False" does not match body value "false" at params.arguments.limits.dryRun'],
    ['an array where the header mirrors a string', good, { ...args, region: [['eu-north-1']] }, 'Header mismatch: Mcp-Param-Region header value "eu-north-1" does not match body value of type array at params.arguments.region'],
    ['an object nested far past the stack', good, { ...args, region: JSON.parse(`${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`) }, 'Header mismatch: Mcp-Param-Region header value "eu-north-1" does not match body value of type object at params.arguments.region'],
    ['a header sent twice', { ...good, 'mcp-param-region': ['eu-north-1', 'eu-north-1'] }, args, 'Header mismatch: Mcp-Param-Region header is sent more than once'],
    ['raw non-ASCII in a header', { ...good, 'mcp-param-region': 'rég' }, { ...args, region: 'rég' }, 'Header mismatch: Mcp-Param-Region header contains characters outside visible ASCII, space and tab'],
  ])('refuses %s with -32020', (_case, headers, callArgs, message) => {
    expect(checkParamHeaders(headers, declared, callArgs)).toEqual({ code: -32020, message });
  });
});
