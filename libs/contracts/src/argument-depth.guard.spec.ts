import { argumentDepthError, MAX_ARGUMENT_DEPTH } from './argument-depth.guard';

/** `{ x: [[…"a"…]] }` with the arguments object at level 1 and `levels` levels in all. */
function nested(levels: number): Record<string, unknown> {
  let value: unknown = 'a';
  for (let i = 1; i < levels; i += 1) value = [value];
  return { x: value };
}

describe('argumentDepthError', () => {
  it('lets arguments nested exactly to the bound through, scalars and shallow values alike', () => {
    expect(argumentDepthError(nested(MAX_ARGUMENT_DEPTH))).toBeNull();
    expect(argumentDepthError({ a: { b: [1, { c: null }] }, d: 'e' })).toBeNull();
    expect(argumentDepthError('text')).toBeNull();
    expect(argumentDepthError(null)).toBeNull();
  });

  it('names the first container past the bound, with the keyword the registry uses for schemas', () => {
    const error = argumentDepthError(nested(MAX_ARGUMENT_DEPTH + 1));
    expect(error).toEqual({ path: `$.x${'[0]'.repeat(MAX_ARGUMENT_DEPTH - 1)}`, keyword: 'too_deep', message: 'nests objects and arrays more than 64 levels deep' });
    expect(argumentDepthError({ 'odd key': { b: {} } }, 2)?.path).toBe('$["odd key"].b');
  });

  it('walks without recursion: a million levels are answered, not a stack overflow', () => {
    const text = `{"x":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}`;
    expect(argumentDepthError(JSON.parse(text))?.keyword).toBe('too_deep');
  });
});
