import { issueDevToken } from '../token.issuer';
import type { Principal } from '@estate/contracts';
import { atDeadline, jwtExpiry } from './token-expiry';

const ALICE = (): Principal => ({ id: 'alice', scopes: [], clearance: 'internal' });

describe('jwtExpiry', () => {
  it('reads exp in milliseconds, once per resolved principal', async () => {
    const expiry = jwtExpiry();
    const principal = ALICE();
    const bearer = `Bearer ${await issueDevToken('s'.repeat(32), { sub: 'alice' }, { expiresIn: '90s' })}`;
    const until = expiry(principal, bearer)!;
    expect(until % 1000).toBe(0);
    expect(until - Date.now()).toBeGreaterThan(85_000);
    expect(until - Date.now()).toBeLessThanOrEqual(90_000);
    // The same principal object stands for the same token: the header is not read again.
    expect(expiry(principal, undefined)).toBe(until);
  });

  it('counts a token whose exp cannot be read as already expired', () => {
    expect(jwtExpiry()(ALICE(), 'Bearer not-a-jwt')).toBe(0);
  });
});

describe('atDeadline', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('fires once at the deadline, and not at all when cancelled', () => {
    const fired: string[] = [];
    atDeadline(Date.now() + 1000, () => fired.push('kept'));
    const cancel = atDeadline(Date.now() + 1000, () => fired.push('cancelled'));
    cancel();
    jest.advanceTimersByTime(999);
    expect(fired).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(fired).toEqual(['kept']);
  });

  it('reaches a deadline beyond what one setTimeout can wait, without firing early', () => {
    const fired: number[] = [];
    const deadline = Date.now() + 40 * 24 * 3600_000;
    atDeadline(deadline, () => fired.push(Date.now()));
    jest.advanceTimersByTime(2 ** 31 - 1);
    expect(fired).toEqual([]);
    jest.advanceTimersByTime(deadline - Date.now());
    expect(fired).toEqual([deadline]);
  });

  it('fires at once for a deadline already past', () => {
    const fired: boolean[] = [];
    atDeadline(Date.now() - 1, () => fired.push(true));
    expect(fired).toEqual([true]);
  });
});
