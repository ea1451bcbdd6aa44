import { forgetOldest, keepWithin } from './bounded-map';

describe('keepWithin', () => {
  it('leaves a map at or under its limit as it is', () => {
    const map = new Map([['a', 1], ['b', 2]]);
    expect(keepWithin(map, 2)).toEqual([]);
    expect([...map.keys()]).toEqual(['a', 'b']);
  });

  it('forgets the oldest keys first, down to nine tenths of the limit', () => {
    const map = new Map<number, number>();
    for (let i = 0; i < 101; i += 1) map.set(i, i);
    expect(keepWithin(map, 100)).toEqual([...Array(11).keys()]);
    expect(map.size).toBe(90);
    expect(map.has(10)).toBe(false);
    expect(map.has(11)).toBe(true);
  });

  it('is an exact least-recently-used bound for a small limit: a key touched again is kept', () => {
    const map = new Map<string, number>([['a', 1], ['b', 2]]);
    map.delete('a');
    map.set('a', 1);
    map.set('c', 3);
    expect(keepWithin(map, 2)).toEqual(['b']);
    expect([...map.keys()]).toEqual(['a', 'c']);
  });

  it('holds a map of many keys within its limit through a long run of inserts', () => {
    const map = new Map<string, number>();
    let largest = 0;
    for (let i = 0; i < 50_000; i += 1) {
      map.set(`k${i}`, i);
      keepWithin(map, 5_000);
      largest = Math.max(largest, map.size);
    }
    expect(largest).toBe(5_000);
    expect(map.has('k49999')).toBe(true);
    expect(map.has('k0')).toBe(false);
  });
});

describe('forgetOldest', () => {
  it('forgets at most the keys there are', () => {
    const map = new Map([['a', 1]]);
    expect(forgetOldest(map, 5)).toEqual(['a']);
    expect(map.size).toBe(0);
  });
});
