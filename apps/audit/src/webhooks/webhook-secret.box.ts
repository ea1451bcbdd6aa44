import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** Stored form of a sealed secret: `sealed:v1:<iv>.<ciphertext>.<tag>`, each part base64url. */
const PREFIX = 'sealed:v1:';
const INFO = 'estate webhook signing secrets';

/** A stored secret this audit cannot open: sealed under another key, tampered with, or no key is set. */
export class SecretUnreadable extends Error {}

/**
 * Webhook signing secrets at rest. The audit must sign with the secret itself (HMAC), so it cannot
 * keep a hash; instead each secret is sealed with AES-256-GCM under a key derived from
 * ESTATE_WEBHOOK_SECRET_KEY. A database dump or a read-only SQL role then shows no usable secret.
 * Without a key the box stores plain text (and the service says so at start); rows written before
 * a key was set stay readable and are sealed by `needsSealing` + `seal` at start.
 */
export class WebhookSecretBox {
  private readonly key?: Buffer;

  constructor(key: string | undefined) {
    if (key !== undefined) this.key = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), INFO, 32));
  }

  get sealing(): boolean {
    return this.key !== undefined;
  }

  /** What goes into the row for this secret. */
  seal(secret: string): string {
    if (!this.key) return secret;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return `${PREFIX}${iv.toString('base64url')}.${body.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`;
  }

  /** The secret a stored value holds; throws SecretUnreadable when it cannot be opened here. */
  open(stored: string): string {
    if (!stored.startsWith(PREFIX)) return stored;
    if (!this.key) throw new SecretUnreadable('the secret is sealed and ESTATE_WEBHOOK_SECRET_KEY is not set');
    const [iv, body, tag] = stored.slice(PREFIX.length).split('.').map((part) => Buffer.from(part, 'base64url'));
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretUnreadable('the secret was sealed under another ESTATE_WEBHOOK_SECRET_KEY, or the row was altered');
    }
  }

  /** A plain-text row that should be sealed now that a key is set. */
  needsSealing(stored: string): boolean {
    return this.key !== undefined && !stored.startsWith(PREFIX);
  }
}
