import type { Bump } from '../semver.policy';

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
}

/** The bump a change needs, every change found, and (when breaking) a value that proves it. */
export interface ChangeClassification {
  bump: Bump;
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

/** A change as the walker finds it, with what the witness builder needs to prove it. */
export interface DetectedChange {
  path: string;
  kind: ChangeKind;
  effect: Effect;
  message: string;
  /** The (dereferenced) nodes that hold the changed keyword, and how to reach them. */
  oldNode: unknown;
  newNode: unknown;
  wrap: Wrap;
}
