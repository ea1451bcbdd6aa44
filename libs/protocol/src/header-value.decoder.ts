import { decodeBase64, decodeUtf8, encodeText } from './base64.codec';

/*
 * Header values the stateless revision mirrors from the body may carry text HTTP cannot: such a
 * value is sent as `=?base64?<base64 of the UTF-8 bytes>?=`. The markers are lowercase and exact.
 */
const SENTINEL = /^=\?base64\?(.*)\?=$/s;
/** Visible ASCII, space and horizontal tab: what a header value may contain unencoded. */
const SAFE_VALUE = /^[\x20-\x7E\t]*$/;

export type DecodedHeader = { readonly ok: true; readonly value: string } | { readonly ok: false; readonly reason: string };

/** The text a mirrored header stands for: the value itself, or the decoded sentinel form. */
export function decodeHeaderValue(raw: string): DecodedHeader {
  if (!SAFE_VALUE.test(raw)) return { ok: false, reason: 'contains characters outside visible ASCII, space and tab' };
  const sentinel = SENTINEL.exec(raw);
  if (sentinel === null) return { ok: true, value: raw };
  const bytes = decodeBase64(sentinel[1] ?? '');
  if (bytes === null) return { ok: false, reason: 'is marked =?base64?…?= but its payload is not valid Base64' };
  const text = decodeUtf8(bytes);
  return text === null ? { ok: false, reason: 'is marked =?base64?…?= but its payload is not UTF-8 text' } : { ok: true, value: text };
}

/** How a client must write `value` into a mirrored header (the inverse of `decodeHeaderValue`). */
export function encodeHeaderValue(value: string): string {
  const plain = /^[\x21-\x7E](?:[\x20-\x7E\t]*[\x21-\x7E])?$/.test(value) || value === '';
  if (plain && !SENTINEL.test(value)) return value;
  return `=?base64?${encodeText(value)}?=`;
}
