import { batchBySize, messageBytes } from './message.size';

describe('batchBySize', () => {
  const size = (n: number) => n;

  it('cuts by count and by bytes, keeping order', () => {
    expect(batchBySize([1, 2, 3, 4, 5], size, 2, 100)).toEqual([[1, 2], [3, 4], [5]]);
    expect(batchBySize([40, 40, 40, 10], size, 10, 100)).toEqual([[40, 40], [40, 10]]);
  });

  it('sends an item over the byte bound alone rather than never', () => {
    expect(batchBySize([10, 500, 10], size, 10, 100)).toEqual([[10], [500], [10]]);
  });

  it('returns no batch for nothing', () => {
    expect(batchBySize([], size, 10, 100)).toEqual([]);
  });
});

describe('messageBytes', () => {
  it('counts key, value and headers in UTF-8 bytes, with room for the record overhead', () => {
    const plain = messageBytes({ key: 'k', value: 'v' });
    expect(messageBytes({ key: 'k', value: 'é' })).toBe(plain + 1);
    expect(messageBytes({ key: 'k', value: 'v', headers: { a: 'b' } })).toBe(plain + 4);
    expect(messageBytes({ key: 'k', value: null })).toBe(plain - 1);
  });
});
