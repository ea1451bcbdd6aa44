import { comparePaths, formatPath, parsePath, pointerToSegments } from './json-path.util';
import { hashText, stableStringify } from './schema-hash.util';

describe('formatPath', () => {
  it.each([
    [[], '$'],
    [['amount'], '$.amount'],
    [['legs', 1, 'amount'], '$.legs[1].amount'],
    [['odd key'], '$["odd key"]'],
    [['x-y', 0], '$["x-y"][0]'],
    [['say "hi"'], '$["say \\"hi\\""]'],
  ] as const)('%j renders as %s', (segments, path) => {
    expect(formatPath(segments)).toBe(path);
    expect(parsePath(path)).toEqual(segments);
  });

  it('orders indices numerically and shorter paths first', () => {
    const paths = ['$.legs[10]', '$.legs[2].amount', '$.legs[2]', '$.a', '$'];
    expect([...paths].sort(comparePaths)).toEqual(['$', '$.a', '$.legs[2]', '$.legs[2].amount', '$.legs[10]']);
  });

  it('reads pointers against the value to tell indices from keys', () => {
    expect(pointerToSegments('/legs/1/a~1b', { legs: [{}, {}] })).toEqual(['legs', 1, 'a/b']);
    expect(pointerToSegments('/1', { '1': true })).toEqual(['1']);
  });
});

describe('stableStringify and hashText', () => {
  it('ignores key order', () => {
    expect(stableStringify({ b: 1, a: { d: [1, { f: 1, e: 2 }], c: null } })).toBe(
      stableStringify({ a: { c: null, d: [1, { e: 2, f: 1 }] }, b: 1 }),
    );
  });

  it('hashes equal text equally and different text differently', () => {
    expect(hashText('{"type":"string"}')).toBe(hashText('{"type":"string"}'));
    expect(hashText('{"type":"string"}')).not.toBe(hashText('{"type":"number"}'));
  });
});
