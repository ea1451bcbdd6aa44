import { DEFAULT_MAX_TRACKED_IDS, RequestIdRegistry } from './request-id.registry';

describe('RequestIdRegistry', () => {
  it('records a new id once and reports a repeat', () => {
    const registry = new RequestIdRegistry();
    expect(registry.add(1)).toBe(true);
    expect(registry.add(1)).toBe(false);
    expect(registry.has(1)).toBe(true);
  });

  it('tracks the integer 1 and the string "1" as different ids', () => {
    const registry = new RequestIdRegistry();
    registry.add(1);
    expect(registry.has('1')).toBe(false);
    expect(registry.add('1')).toBe(true);
  });

  it('forgets the oldest id once the capacity is exceeded', () => {
    const registry = new RequestIdRegistry(2);
    registry.add('a');
    registry.add('b');
    registry.add('c');
    expect(registry.size).toBe(2);
    expect(registry.has('a')).toBe(false);
    expect(registry.has('b')).toBe(true);
    expect(registry.has('c')).toBe(true);
  });

  it('has a documented default capacity', () => {
    expect(new RequestIdRegistry().capacity).toBe(DEFAULT_MAX_TRACKED_IDS);
  });

  it.each([[0], [-1], [1.5]])('refuses the capacity %p', (capacity) => {
    expect(() => new RequestIdRegistry(capacity)).toThrow(RangeError);
  });
});
