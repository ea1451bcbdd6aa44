import { SecretUnreadable, WebhookSecretBox } from './webhook-secret.box';

const KEY = 'k'.repeat(40);
const SECRET = 'whsec-0123456789abcdefghijklmnopqrstuv';

describe('webhook secrets at rest', () => {
  it('seals under a key: the stored value does not contain the secret, and opens to it again', () => {
    const box = new WebhookSecretBox(KEY);
    const stored = box.seal(SECRET);
    expect(stored).toMatch(/^sealed:v1:/);
    expect(stored).not.toContain(SECRET);
    expect(box.open(stored)).toBe(SECRET);
    // A fresh nonce each time: two rows with one secret do not look alike.
    expect(box.seal(SECRET)).not.toBe(stored);
  });

  it('refuses a value sealed under another key, an altered value, and a sealed value with no key', () => {
    const stored = new WebhookSecretBox(KEY).seal(SECRET);
    expect(() => new WebhookSecretBox('x'.repeat(40)).open(stored)).toThrow(SecretUnreadable);
    const parts = stored.split('.');
    const altered = [parts[0], Buffer.from('y'.repeat(SECRET.length)).toString('base64url'), parts[2]].join('.');
    expect(() => new WebhookSecretBox(KEY).open(altered)).toThrow(SecretUnreadable);
    expect(() => new WebhookSecretBox(undefined).open(stored)).toThrow(/ESTATE_WEBHOOK_SECRET_KEY is not set/);
  });

  it('without a key stores plain text; plain rows stay readable and are marked for sealing once a key is set', () => {
    const plain = new WebhookSecretBox(undefined);
    expect(plain.seal(SECRET)).toBe(SECRET);
    expect(plain.needsSealing(SECRET)).toBe(false);
    const keyed = new WebhookSecretBox(KEY);
    expect(keyed.open(SECRET)).toBe(SECRET);
    expect(keyed.needsSealing(SECRET)).toBe(true);
    expect(keyed.needsSealing(keyed.seal(SECRET))).toBe(false);
  });
});
