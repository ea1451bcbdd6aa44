import { checkRequestHeaders, readHeader } from './request-headers.validator';

const base = { 'mcp-protocol-version': '2026-07-28' };

describe('checkRequestHeaders', () => {
  it('accepts headers that mirror the body, whatever the case of the header names', () => {
    const headers = { 'MCP-PROTOCOL-VERSION': '2026-07-28', 'MCP-METHOD': 'tools/call', 'mcp-NAME': 'weather' };
    expect(checkRequestHeaders(headers, 'tools/call', { name: 'weather' }, '2026-07-28')).toBeNull();
  });

  it('needs no Mcp-Name for a method without a named target', () => {
    expect(checkRequestHeaders({ ...base, 'mcp-method': 'tools/list' }, 'tools/list', {}, '2026-07-28')).toBeNull();
  });

  it('takes the target of resources/read from params.uri', () => {
    const uri = 'file:///etc/app.json';
    expect(checkRequestHeaders({ ...base, 'mcp-method': 'resources/read', 'mcp-name': uri }, 'resources/read', { uri }, '2026-07-28')).toBeNull();
    expect(checkRequestHeaders({ ...base, 'mcp-method': 'resources/read', 'mcp-name': 'file:///other' }, 'resources/read', { uri }, '2026-07-28')).toEqual({
      code: -32020,
      message: 'Header mismatch: Mcp-Name header value "file:///other" does not match body value "file:///etc/app.json"',
    });
  });

  it('decodes a Base64-marked Mcp-Name before comparing it', () => {
    const name = 'météo';
    const encoded = `=?base64?${Buffer.from(name, 'utf8').toString('base64')}?=`;
    expect(checkRequestHeaders({ ...base, 'mcp-method': 'prompts/get', 'mcp-name': encoded }, 'prompts/get', { name }, '2026-07-28')).toBeNull();
  });

  it.each<[string, Record<string, string | string[]>, string]>([
    ['no version header', { 'mcp-method': 'tools/call', 'mcp-name': 'w' }, 'Header mismatch: required header MCP-Protocol-Version is missing'],
    ['no Mcp-Method', { ...base, 'mcp-name': 'w' }, 'Header mismatch: required header Mcp-Method is missing'],
    ['no Mcp-Name on tools/call', { ...base, 'mcp-method': 'tools/call' }, 'Header mismatch: required header Mcp-Name is missing'],
    ['Mcp-Method twice', { ...base, 'mcp-method': ['tools/call', 'tools/call'], 'mcp-name': 'w' }, 'Header mismatch: Mcp-Method header is sent more than once'],
    ['Mcp-Method under two spellings', { ...base, 'mcp-method': 'tools/call', 'Mcp-Method': 'tools/call', 'mcp-name': 'w' }, 'Header mismatch: Mcp-Method header is sent more than once'],
    ['an Mcp-Method in another case', { ...base, 'mcp-method': 'Tools/Call', 'mcp-name': 'w' }, 'Header mismatch: Mcp-Method header value "Tools/Call" does not match body value "tools/call"'],
    ['an empty Mcp-Method', { ...base, 'mcp-method': '', 'mcp-name': 'w' }, 'Header mismatch: Mcp-Method header is empty or contains invalid characters'],
    ['a version header with a trailing space', { 'mcp-protocol-version': '2026-07-28 ', 'mcp-method': 'tools/call', 'mcp-name': 'w' }, 'Header mismatch: MCP-Protocol-Version header is empty or contains invalid characters'],
    ['an Mcp-Name with raw non-ASCII', { ...base, 'mcp-method': 'tools/call', 'mcp-name': 'wé' }, 'Header mismatch: Mcp-Name header contains characters outside visible ASCII, space and tab'],
    ['an Mcp-Name with broken Base64', { ...base, 'mcp-method': 'tools/call', 'mcp-name': '=?base64?###?=' }, 'Header mismatch: Mcp-Name header is marked =?base64?…?= but its payload is not valid Base64'],
    ['an Mcp-Name whose Base64 is not UTF-8', { ...base, 'mcp-method': 'tools/call', 'mcp-name': '=?base64?/w==?=' }, 'Header mismatch: Mcp-Name header is marked =?base64?…?= but its payload is not UTF-8 text'],
    ['an Mcp-Name that differs', { ...base, 'mcp-method': 'tools/call', 'mcp-name': 'x' }, 'Header mismatch: Mcp-Name header value "x" does not match body value "w"'],
  ])('refuses %s with -32020', (_case, headers, message) => {
    expect(checkRequestHeaders(headers, 'tools/call', { name: 'w' }, '2026-07-28')).toEqual({ code: -32020, message });
  });

  it('refuses a version header that differs from the body version', () => {
    expect(checkRequestHeaders({ ...base, 'mcp-method': 'tools/list' }, 'tools/list', {}, '2026-12-01')).toEqual({
      code: -32020,
      message: 'Header mismatch: MCP-Protocol-Version header value "2026-07-28" does not match body value "2026-12-01"',
    });
  });

  it('refuses a named method whose body has no name with -32602 at that member', () => {
    expect(checkRequestHeaders({ ...base, 'mcp-method': 'tools/call', 'mcp-name': 'w' }, 'tools/call', { arguments: {} }, '2026-07-28')).toEqual({
      code: -32602,
      message: 'Invalid params: params.name: must be a string, got nothing (member missing)',
    });
  });

  it('cuts a huge header value short in the message', () => {
    const huge = 'a'.repeat(10_000);
    const error = checkRequestHeaders({ ...base, 'mcp-method': 'tools/call', 'mcp-name': huge }, 'tools/call', { name: 'w' }, '2026-07-28');
    expect(error?.message.length).toBeLessThan(200);
  });
});

describe('readHeader', () => {
  it('finds a header in any case, and reports one sent twice', () => {
    expect(readHeader({ 'Mcp-Method': 'x' }, 'mcp-method')).toEqual({ present: true, value: 'x' });
    expect(readHeader({ 'mcp-method': ['x', 'y'] }, 'Mcp-Method')).toEqual({ present: true, repeated: true });
    expect(readHeader({ 'mcp-method': undefined }, 'Mcp-Method')).toEqual({ present: false });
  });
});
