import { createHash } from 'node:crypto';
import { escapeUnstorable } from '@estate/contracts';

/** A value made fit for a text column: storable, and at most a bounded length. */
export interface BoundedText {
  text: string;
  /** The value was longer than the bound; `text` ends with `…#` and a digest of the whole escaped value. */
  truncated: boolean;
  /** Some characters (U+0000, lone surrogates) were replaced by their JSON escapes. */
  escaped: boolean;
}

/**
 * Escapes what PostgreSQL cannot store, then keeps the first `max` characters and a sha256 prefix
 * of the whole value, so two long values sharing a prefix still differ and a search key stays
 * small enough for a b-tree index. The cut never splits a surrogate pair.
 */
export function boundText(text: string, max: number): BoundedText {
  const storable = escapeUnstorable(text);
  const escaped = storable !== text;
  if (storable.length <= max) return { text: storable, truncated: false, escaped };
  let cut = max;
  const last = storable.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
  const digest = createHash('sha256').update(storable).digest('hex').slice(0, 16);
  return { text: `${storable.slice(0, cut)}…#${digest}`, truncated: true, escaped };
}
