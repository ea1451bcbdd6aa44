import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`: the timestamp is signed with the
 * body, so a receiver that refuses old timestamps also refuses a replayed request.
 */
export function signatureHeader(secret: string, unixSeconds: number, body: string): string {
  const digest = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${digest}`;
}

/** The receiver's side (the README's recipe): true when the header signs this body within `toleranceS`. */
export function verifySignature(secret: string, header: string, body: string, nowSeconds: number, toleranceS = 300): boolean {
  const parts = new Map(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceS) return false;
  const expected = Buffer.from(signatureHeader(secret, t, body).split('v1=')[1], 'hex');
  const given = Buffer.from(v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
