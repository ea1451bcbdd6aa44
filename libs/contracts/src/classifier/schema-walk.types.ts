import type { DetectedChange, Wrap } from './classifier.types';
import type { CompatPolicy } from './compat.policy';
import type { SchemaDocument, SchemaRecord } from './schema-node.util';

/** Where the walk stands: the schema path so far and how to build an instance reaching it. */
export interface Site {
  path: string;
  wrap: Wrap;
  /**
   * The edge's repair reaches this node and fills its properties' defaults before validating
   * (input only: the root, properties, additionalProperties and items, never inside allOf,
   * anyOf, not or patternProperties). Unset elsewhere.
   */
  fills?: true;
  /** The node's own `default` is judged by the parent that fills it (see objectRules). */
  defaultJudged?: true;
}

export interface WalkContext {
  oldDoc: SchemaDocument;
  newDoc: SchemaDocument;
  /** Decides the effect of declaring an optional property where the schema was open. */
  policy: CompatPolicy;
  /**
   * Shared by every context of one walk (asides included): set when the policy decided an
   * effect, so a walk that never met that case need not be repeated under the other policy.
   */
  policyApplied: { value: boolean };
  /** Pairs of `$ref` chains already compared; a revisit is a cycle and ends the walk there. */
  seen: Set<string>;
  out: DetectedChange[];
  /** The recursive comparison, passed in so rule modules need not import the walker. */
  compare: (oldRaw: unknown, newRaw: unknown, site: Site, ctx: WalkContext) => void;
}

/** Two dereferenced nodes at the same place in the old and the new schema. */
export interface NodePair {
  o: SchemaRecord;
  n: SchemaRecord;
  site: Site;
  ctx: WalkContext;
}
