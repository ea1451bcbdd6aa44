/**
 * Keeps a Map that is used as a least-recently-used cache (oldest key first) within `limit`
 * entries. Over the limit it forgets the oldest entries in one pass, down to nine tenths of the
 * limit, instead of one entry per insert: V8 leaves a hole where a key was deleted until it
 * compacts the table, and `keys().next()` walks every hole before the first live key, so
 * dropping the single oldest key on each insert cost a walk over thousands of holes once a
 * cache held tens of thousands of keys. Profiled: the 95,000 strings of a 1 MB contract held
 * the event loop for 2–7 s. One pass per tenth of the limit makes the walk amortised constant.
 * Returns the keys forgotten, for callers that keep a size beside the map.
 */
export function keepWithin<K>(map: Map<K, unknown>, limit: number): K[] {
  if (map.size <= limit) return [];
  return forgetOldest(map, map.size - limit + Math.floor(limit / 10));
}

/** Forgets the `count` oldest keys of `map` in one pass, and returns them. */
export function forgetOldest<K>(map: Map<K, unknown>, count: number): K[] {
  const forgotten: K[] = [];
  for (const key of map.keys()) {
    if (forgotten.length >= count) break;
    forgotten.push(key);
  }
  for (const key of forgotten) map.delete(key);
  return forgotten;
}
