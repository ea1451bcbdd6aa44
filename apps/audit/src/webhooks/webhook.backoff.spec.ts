import { afterFailure, retryDelayMs } from './webhook.backoff';
import { signatureHeader, verifySignature } from './webhook.signature';

const policy = { maxAttempts: 4, baseMs: 100, capMs: 1000 };

describe('webhook retries', () => {
  it('waits up to base·2^(n-1), capped, scaled by the jitter', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(policy, n, 0.999999))).toEqual([99, 199, 399, 799, 999, 999]);
    expect(retryDelayMs(policy, 3, 0)).toBe(0);
    expect(retryDelayMs(policy, 3, 0.5)).toBe(200);
  });

  it('gives up after the last allowed attempt', () => {
    expect(afterFailure(policy, 3, 0.5)).toEqual({ retryInMs: 200 });
    expect(afterFailure(policy, 4, 0.5)).toBe('dead');
  });
});

describe('webhook signatures', () => {
  const secret = 'a'.repeat(32);
  it('signs timestamp and body, and the recipe verifies them', () => {
    const header = signatureHeader(secret, 1_800_000_000, '{"a":1}');
    expect(header).toMatch(/^t=1800000000,v1=[0-9a-f]{64}$/);
    expect(verifySignature(secret, header, '{"a":1}', 1_800_000_010)).toBe(true);
  });

  it('refuses another body, another secret or an old timestamp', () => {
    const header = signatureHeader(secret, 1_800_000_000, '{"a":1}');
    expect(verifySignature(secret, header, '{"a":2}', 1_800_000_000)).toBe(false);
    expect(verifySignature('b'.repeat(32), header, '{"a":1}', 1_800_000_000)).toBe(false);
    expect(verifySignature(secret, header, '{"a":1}', 1_800_001_000)).toBe(false);
  });
});
