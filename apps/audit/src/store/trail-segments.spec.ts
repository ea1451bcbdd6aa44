import { segmentsOf } from './trail.appender';

describe('segmentsOf', () => {
  const sizes = (n: number, size?: number) => segmentsOf(Array.from({ length: n }, (_, i) => i), size).map((s) => s.length);

  it('cuts a batch into full segments and ends with a quarter-size one', () => {
    expect(sizes(7000, 1000)).toEqual([1000, 1000, 1000, 1000, 1000, 1000, 750, 250]);
    expect(sizes(1100, 1000)).toEqual([850, 250]);
    expect(sizes(600)).toEqual([250, 250, 38, 62]);
    expect(sizes(10, 4)).toEqual([4, 4, 1, 1]);
  });

  it('keeps a batch of one segment or less whole, and an empty one empty', () => {
    expect(sizes(1000, 1000)).toEqual([1000]);
    expect(sizes(250)).toEqual([250]);
    expect(sizes(1)).toEqual([1]);
    expect(sizes(0)).toEqual([]);
  });

  it('keeps every item once, in order', () => {
    const items = Array.from({ length: 2345 }, (_, i) => i);
    expect(segmentsOf(items).flat()).toEqual(items);
  });
});
