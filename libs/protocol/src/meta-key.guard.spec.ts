import { isPrefixedMetaKey, isReservedMetaKey, isValidMetaKey } from './meta-key.guard';

describe('_meta key grammar', () => {
  it.each(['progressToken', 'io.modelcontextprotocol/protocolVersion', 'com.example/x', 'com.example-corp.v2/a.b_c-d', 'a/', 'name', ''])('accepts %p', (key) => {
    expect(isValidMetaKey(key)).toBe(true);
  });

  it.each(['-name', 'name-', 'com..example/x', '1com/x', 'com-/x', 'com.example/-x', 'com.example/x_', 'a b', '/x', 'com/example/x'])('refuses %p', (key) => {
    expect(isValidMetaKey(key)).toBe(false);
  });

  it('demands a prefix for extension identifiers', () => {
    expect(isPrefixedMetaKey('io.modelcontextprotocol/tasks')).toBe(true);
    expect(isPrefixedMetaKey('tasks')).toBe(false);
  });

  it.each([
    ['io.modelcontextprotocol/x', true],
    ['dev.mcp/x', true],
    ['org.modelcontextprotocol.api/x', true],
    ['com.mcp.tools/x', true],
    ['com.example.mcp/x', false],
    ['mcp/x', false],
    ['progressToken', false],
  ])('%p is reserved for the specification: %p', (key, reserved) => {
    expect(isReservedMetaKey(key)).toBe(reserved);
  });
});
