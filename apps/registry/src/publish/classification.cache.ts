import { keepWithin } from '@estate/protocol';
import { createHash } from 'node:crypto';
import { DEFAULT_COMPAT_POLICY, type ChangeClassification, type ToolSpec } from '@estate/contracts';
import { classifierFor, type ClassifyChange } from '../domain/tool.decider';

/** Enough for every pair a burst of checks, publishes, retries and diffs asks about; each entry is a few kB. */
export const CLASSIFICATION_CACHE_SIZE = 1_000;

/**
 * The classifier in front of a bounded LRU keyed by the (old spec, new spec) pair: a check
 * followed by its publish, a retry after a conflict and every diff of a version ask the same
 * question, and the classifier (witness search included) is the costliest step of a publish.
 * The classifier is pure, so a cached answer is the answer. One cache per classifier, so per
 * ESTATE_COMPAT policy (bound into `classify`): the same pair is a different question under strict.
 */
export function cachedClassifier(
  classify: ClassifyChange = classifierFor(DEFAULT_COMPAT_POLICY), limit = CLASSIFICATION_CACHE_SIZE,
): ClassifyChange & { size(): number } {
  const entries = new Map<string, ChangeClassification>();
  // The same two objects asked again (the decision, then its answer's report): no key to hash.
  // Specs are never changed once parsed, so the objects' identity is their content.
  const lastAsked = new WeakMap<ToolSpec, { oldSpec: ToolSpec; answer: ChangeClassification }>();
  const cached = (oldSpec: ToolSpec, newSpec: ToolSpec): ChangeClassification => {
    const same = lastAsked.get(newSpec);
    if (same?.oldSpec === oldSpec) return same.answer;
    const answer = lookup(oldSpec, newSpec);
    lastAsked.set(newSpec, { oldSpec, answer });
    return answer;
  };
  const lookup = (oldSpec: ToolSpec, newSpec: ToolSpec): ChangeClassification => {
    const key = pairKey(oldSpec, newSpec);
    const hit = entries.get(key);
    if (hit !== undefined) {
      // Re-inserted: a Map iterates in insertion order, so its first key is the least recently used.
      entries.delete(key);
      entries.set(key, hit);
      return hit;
    }
    const answer = classify(oldSpec, newSpec);
    entries.set(key, answer);
    keepWithin(entries, limit);
    return answer;
  };
  return Object.assign(cached, { policy: classify.policy, size: () => entries.size });
}

/** Each spec's digest, kept while the spec is: a publish's new spec is the next publish's old one. */
const digests = new WeakMap<ToolSpec, string>();

/**
 * Both specs' JSON digests. Plain JSON.stringify, not a canonical form: every publish that misses
 * pays for the key, and the canonical one cost as much as a small classification (profiled).
 * Stored specs keep their key order (json, not jsonb), so the same pair gives the same key; a
 * reordered one only misses. Specs are never changed once parsed, so a digest stays true.
 */
function pairKey(oldSpec: ToolSpec, newSpec: ToolSpec): string {
  return `${digestOf(oldSpec)} ${digestOf(newSpec)}`;
}

function digestOf(spec: ToolSpec): string {
  let digest = digests.get(spec);
  if (digest === undefined) {
    digest = createHash('sha256').update(JSON.stringify(spec)).digest('base64');
    digests.set(spec, digest);
  }
  return digest;
}
