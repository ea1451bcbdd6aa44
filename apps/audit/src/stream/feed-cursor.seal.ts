import { createCipheriv, createDecipheriv, createHmac, hkdfSync } from 'node:crypto';

/** A sealed position on the wire: `c1.` and base64url of iv (12 bytes) · position (8) · tag (16). */
const PREFIX = 'c1.';
const SEALED = /^c1\.[A-Za-z0-9_-]{48}$/;
const INFO = 'estate feed cursors';

/** Whether an id has the shape of a sealed cursor (whether it opens is `open`'s answer). */
export function isSealedCursor(value: string): boolean {
  return value.startsWith(PREFIX);
}

/**
 * Feed positions for readers who see part of the feed. A position is the trail's seq, so the gap
 * between two positions a reader was sent would count what was hidden from it: other tools'
 * changes and every principal's calls. Such a reader gets each position sealed with AES-256-GCM
 * (as webhook-secret.box.ts seals secrets), bound to its holder as associated data. The IV is an
 * HMAC of holder and position: the same event gets the same id each time its holder reads it, and
 * two different cursors never share an IV, however many are sealed under one key.
 */
export class FeedCursorSeal {
  private readonly key: Buffer;
  private readonly ivKey: Buffer;

  constructor(secret: string | Buffer) {
    const keys = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), INFO, 64));
    this.key = keys.subarray(0, 32);
    this.ivKey = keys.subarray(32);
  }

  seal(position: number, holder: string): string {
    const plain = Buffer.alloc(8);
    plain.writeBigUInt64BE(BigInt(position));
    const iv = createHmac('sha256', this.ivKey).update(holder).update(plain).digest().subarray(0, 12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(holder, 'utf8'));
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return `${PREFIX}${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
  }

  /** The position a cursor sealed here for `holder` stands for; undefined for anything else (altered, another key, another holder). */
  open(cursor: string, holder: string): number | undefined {
    if (!SEALED.test(cursor)) return undefined;
    const bytes = Buffer.from(cursor.slice(PREFIX.length), 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, 12));
      decipher.setAAD(Buffer.from(holder, 'utf8'));
      decipher.setAuthTag(bytes.subarray(20));
      const position = Buffer.concat([decipher.update(bytes.subarray(12, 20)), decipher.final()]).readBigUInt64BE();
      return position <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(position) : undefined;
    } catch {
      return undefined;
    }
  }
}
