/*
 * Base64 written out rather than taken from Buffer or atob, so the library needs no platform
 * globals beyond TextEncoder/TextDecoder and a malformed payload is ours to report, not silently
 * repaired. Standard alphabet with padding, or the URL-safe one without.
 */
const STANDARD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const STANDARD_SHAPE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const URL_SAFE_SHAPE = /^[A-Za-z0-9_-]*$/;

export type Base64Variant = 'standard' | 'url';

export function encodeBase64(bytes: Uint8Array, variant: Base64Variant = 'standard'): string {
  const alphabet = variant === 'url' ? URL_SAFE : STANDARD;
  let text = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const chunk = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const kept = i + 2 < bytes.length ? 4 : i + 1 < bytes.length ? 3 : 2;
    for (const shift of [18, 12, 6, 0].slice(0, kept)) text += alphabet[(chunk >> shift) & 63];
    if (variant === 'standard') text += '='.repeat(4 - kept);
  }
  return text;
}

/** The bytes, or null when `text` is not Base64 of the given variant. */
export function decodeBase64(text: string, variant: Base64Variant = 'standard'): Uint8Array | null {
  const shape = variant === 'url' ? URL_SAFE_SHAPE : STANDARD_SHAPE;
  if (!shape.test(text) || (variant === 'url' && text.length % 4 === 1)) return null;
  const alphabet = variant === 'url' ? URL_SAFE : STANDARD;
  const clean = text.replace(/=+$/, '');
  const bytes = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0;
  let count = 0;
  let out = 0;
  for (const char of clean) {
    bits = ((bits << 6) | alphabet.indexOf(char)) & 0xffffff;
    count += 6;
    if (count >= 8) {
      count -= 8;
      bytes[out++] = (bits >> count) & 0xff;
    }
  }
  return bytes;
}

/** UTF-8 text as Base64. */
export function encodeText(text: string, variant: Base64Variant = 'standard'): string {
  return encodeBase64(new TextEncoder().encode(text), variant);
}

/** Base64 back to UTF-8 text; null when either layer is malformed. */
export function decodeText(text: string, variant: Base64Variant = 'standard'): string | null {
  const bytes = decodeBase64(text, variant);
  return bytes === null ? null : decodeUtf8(bytes);
}

/** Strict UTF-8: null for bytes that are not, instead of replacement characters. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
