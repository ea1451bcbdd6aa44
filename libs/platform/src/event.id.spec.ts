import { timeOrderedEventId } from './event.id';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('timeOrderedEventId', () => {
  it('is a version 7 UUID whose first 48 bits are the time in milliseconds', () => {
    const at = Date.UTC(2026, 11, 1, 22, 40, 0, 123);
    const id = timeOrderedEventId(at);
    expect(id).toMatch(UUID_V7);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
  });

  it('sorts ids of a later millisecond after those of an earlier one, and never repeats', () => {
    const at = Date.UTC(2026, 11, 1);
    const earlier = Array.from({ length: 500 }, () => timeOrderedEventId(at));
    const later = Array.from({ length: 500 }, () => timeOrderedEventId(at + 1));
    expect(earlier.every((a) => later.every((b) => a < b))).toBe(true);
    expect(new Set([...earlier, ...later]).size).toBe(1000);
  });
});
