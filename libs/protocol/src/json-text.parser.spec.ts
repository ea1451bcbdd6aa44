import { parseJson } from './json-text.parser';

describe('parseJson', () => {
  it('returns the parsed value for valid JSON', () => {
    expect(parseJson('{"jsonrpc":"2.0","id":1,"method":"ping"}')).toEqual({
      ok: true,
      value: { jsonrpc: '2.0', id: 1, method: 'ping' },
    });
  });

  it('accepts any JSON value, leaving message checks to the classifier', () => {
    expect(parseJson('42')).toEqual({ ok: true, value: 42 });
    expect(parseJson('[]')).toEqual({ ok: true, value: [] });
  });

  it('answers unparseable JSON with -32700 and a clear message', () => {
    const result = parseJson('{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe(-32700);
    expect(result.error.message).toMatch(/^Parse error: the message is not valid JSON/);
  });

  it('answers an empty or blank frame with -32700', () => {
    for (const text of ['', '   \n']) {
      const result = parseJson(text);
      expect(result).toEqual({
        ok: false,
        error: { code: -32700, message: 'Parse error: the message is empty; expected a JSON value' },
      });
    }
  });

  it('answers a truncated frame with -32700', () => {
    const result = parseJson('{"jsonrpc":"2.0","id":1,');
    expect(result.ok ? undefined : result.error.code).toBe(-32700);
  });
});
