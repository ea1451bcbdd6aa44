import type { UpstreamText } from './upstream-answer.guard';

/** Deeper than any log payload a model needs; past it nothing is relayed unchecked because nothing past it is relayed. */
const MAX_DEPTH = 32;

/**
 * Every string in a JSON value (a log message's `data` may be any JSON), with its path. Keys are
 * text too: an object's keys reach the model as much as its values.
 */
export function textsIn(value: unknown, path: string, depth = 0): UpstreamText[] {
  if (typeof value === 'string') return [{ path, text: value }];
  if (depth >= MAX_DEPTH || typeof value !== 'object' || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item, i) => textsIn(item, `${path}[${i}]`, depth + 1));
  return Object.entries(value).flatMap(([key, item]) => [
    { path: `${path}{${JSON.stringify(key)}}`, text: key },
    ...textsIn(item, `${path}[${JSON.stringify(key)}]`, depth + 1),
  ]);
}

/** A copy of `value` with the strings at the withheld paths replaced (keys by a numbered placeholder); deeper than textsIn looks, nothing is kept. */
export function withholdIn(value: unknown, path: string, withheld: Set<string>, placeholder: string, depth = 0): unknown {
  if (typeof value === 'string') return withheld.has(path) ? placeholder : value;
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return null;
  if (Array.isArray(value)) return value.map((item, i) => withholdIn(item, `${path}[${i}]`, withheld, placeholder, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item], i) => [
    withheld.has(`${path}{${JSON.stringify(key)}}`) ? `${placeholder} ${i}` : key,
    withholdIn(item, `${path}[${JSON.stringify(key)}]`, withheld, placeholder, depth + 1),
  ]));
}
