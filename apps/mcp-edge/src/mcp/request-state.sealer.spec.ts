import { RequestStateSealer } from './request-state.sealer';

describe('requestState sealed with the configured key', () => {
  const binding = { principal: '[null,"teller"]', method: 'tools/call', binding: 'abc' };
  let now = 1_000;
  const clock = () => now;

  it('opens on another copy holding the same key, and only for the same principal and request', () => {
    const sealed = new RequestStateSealer('k'.repeat(40), 60_000, clock).seal(binding, { ask: 'confirm' });
    const otherCopy = new RequestStateSealer('k'.repeat(40), 60_000, clock);
    expect(otherCopy.open(sealed, binding)).toEqual({ ok: true, data: { ask: 'confirm' } });
    expect(otherCopy.open(sealed, { ...binding, principal: '[null,"mallory"]' })).toEqual({ ok: false, reason: 'other_principal' });
    expect(otherCopy.open(sealed, { ...binding, binding: 'other-arguments' })).toEqual({ ok: false, reason: 'other_request' });
  });

  it('refuses a state sealed under another key, and one past its lifetime', () => {
    const sealed = new RequestStateSealer('k'.repeat(40), 60_000, clock).seal(binding, {});
    expect(new RequestStateSealer('x'.repeat(40), 60_000, clock).open(sealed, binding)).toEqual({ ok: false, reason: 'forged' });
    now += 60_000;
    expect(new RequestStateSealer('k'.repeat(40), 60_000, clock).open(sealed, binding)).toEqual({ ok: false, reason: 'expired' });
  });

  it('without a shared store, spends a state once on this copy and forgets it after its lifetime', async () => {
    const copy = new RequestStateSealer('k'.repeat(40), 60_000, clock);
    await expect(copy.spendOnce('n-1')).resolves.toBe(true);
    await expect(copy.spendOnce('n-1')).resolves.toBe(false);
    // Another copy's memory knows nothing of it: the gap ESTATE_EDGE_DATABASE_URL closes.
    await expect(new RequestStateSealer('k'.repeat(40), 60_000, clock).spendOnce('n-1')).resolves.toBe(true);
    now += 60_000;
    await expect(copy.spendOnce('n-1')).resolves.toBe(true);
  });
});
