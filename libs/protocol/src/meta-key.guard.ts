/*
 * The `_meta` key grammar: an optional prefix of dot-separated labels ending in "/", then a name.
 * Labels start with a letter and end with a letter or digit; names start and end alphanumeric.
 */
const LABEL = '[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?';
const NAME = '(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?';
const PREFIXED_KEY = new RegExp(`^${LABEL}(?:\\.${LABEL})*/${NAME}$`);
const ANY_KEY = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*/)?${NAME}$`);

/** A valid `_meta` key, with or without a prefix. */
export function isValidMetaKey(key: string): boolean {
  return ANY_KEY.test(key);
}

/** A valid key that has a prefix (required for extension identifiers). */
export function isPrefixedMetaKey(key: string): boolean {
  return PREFIXED_KEY.test(key);
}

/** A prefix whose second label is `modelcontextprotocol` or `mcp` belongs to the specification. */
export function isReservedMetaKey(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  const second = key.slice(0, slash).split('.')[1];
  return second === 'modelcontextprotocol' || second === 'mcp';
}
