import type { Bump } from '../semver.policy';
import type { CompatPolicy } from './compat.policy';

/** Every kind of difference the classifier names; one per rule it applies. */
export type ChangeKind =
  | 'property-added-required'
  | 'property-added-optional'
  | 'property-removed'
  | 'made-required'
  | 'made-optional'
  | 'type-changed'
  | 'type-narrowed'
  | 'type-widened'
  | 'enum-narrowed'
  | 'enum-widened'
  | 'const-added'
  | 'const-removed'
  | 'const-changed'
  | 'bound-tightened'
  | 'bound-loosened'
  | 'unique-items-required'
  | 'unique-items-relaxed'
  | 'pattern-added'
  | 'pattern-changed'
  | 'pattern-removed'
  | 'format-added'
  | 'format-changed'
  | 'format-removed'
  | 'additional-properties-closed'
  | 'additional-properties-opened'
  | 'pattern-properties-changed'
  | 'schema-closed'
  | 'schema-opened'
  | 'any-of-branch-added'
  | 'any-of-branch-removed'
  | 'all-of-member-added'
  | 'all-of-member-removed'
  | 'composition-added'
  | 'composition-removed'
  | 'composition-changed'
  | 'keyword-added'
  | 'keyword-removed'
  | 'keyword-changed'
  | 'dialect-changed'
  | 'description-changed'
  | 'title-changed'
  | 'default-changed'
  | 'annotation-changed'
  | 'other-changed'
  | 'output-schema-added'
  | 'output-schema-removed'
  | 'side-effect-changed'
  | 'metadata-changed';

/** One difference between two contracts, located by its schema path. */
export interface SchemaChange {
  /** JSON-path-like location in the schema, e.g. `$.properties.amount.minimum`. */
  path: string;
  kind: ChangeKind;
  breaking: boolean;
  bump: Bump;
  message: string;
  /**
   * Minor only by the convention the `standard` policy follows (see compat.policy.ts): the new
   * contract rejects `witness`, which the old one accepted. Input schemas only.
   */
  narrows?: true;
  /**
   * With `narrows`: a value the old contract accepts and the new one rejects. On a property removed
   * where the schema stays open: a value carrying the property that both accept, i.e. a call that
   * still passes and whose property is now ignored. Checked with the real validator either way.
   */
  witness?: unknown;
  /** What the `strict` policy says about this change, whichever policy is in force. */
  strict: { bump: Bump; breaking: boolean };
}

/** The bump a change needs, every change found, and (when breaking) a value that proves it. */
export interface ChangeClassification {
  /** The policy `bump` and each change's `bump` were decided under. */
  policy: CompatPolicy;
  bump: Bump;
  /** The bump the `strict` policy would require (equal to `bump` under it). */
  strictBump: Bump;
  /** Sorted by path, then kind. */
  changes: SchemaChange[];
  /** For a major change: a value the old contract accepts and the new one rejects (see witness.ts). */
  witness?: unknown;
}

/**
 * Descriptions are prompt surface: they steer which tool a model picks, so a description
 * change asks for a re-run of the evaluation suite. We encode that as a minor bump.
 */
export const DESCRIPTION_CHANGE_BUMP: Bump = 'minor';

/**
 * How a change moves the set of accepted values, independent of direction:
 * `narrower` rejects something the old accepted, `wider` accepts something new,
 * `both` is incomparable (or cannot be proven either way), `neutral` changes no value,
 * `compatible` is an addition the who-breaks rule calls compatible by convention
 * (an optional property that callers never sent before it was declared).
 */
export type Effect = 'narrower' | 'wider' | 'both' | 'neutral' | 'compatible';

/** Which side of a comparison a value is built for. */
export type Side = 'old' | 'new';

/** Places a value found at a schema location into a whole instance of that side's root. */
export type Wrap = (side: Side, value: unknown) => unknown;

/**
 * A change whose bump does not tell the whole story, so the report shows a value for it.
 * `narrows`: compatible by convention (an optional property declared where the schema was open),
 * yet the new contract rejects values the old one accepted.
 * `ignored`: a property removed where undeclared properties are still accepted: a caller that
 * still sends it passes validation and loses its effect without a word.
 */
export type Caveat = { kind: 'narrows' } | { kind: 'ignored'; property: string };

/** A change as the walker finds it, with what the witness builder needs to prove it. */
export interface DetectedChange {
  path: string;
  kind: ChangeKind;
  effect: Effect;
  message: string;
  caveat?: Caveat;
  /** The (dereferenced) nodes that hold the changed keyword, and how to reach them. */
  oldNode: unknown;
  newNode: unknown;
  wrap: Wrap;
  /** Values at this change's node worth trying first as its witness (before `wrap`). */
  candidates?: unknown[];
}
