import { PathSegment, appendPath } from '../json-path.util';
import type { Caveat, ChangeKind, DetectedChange, Effect, Side } from './classifier.types';
import { minimalInstance } from './minimal-instance';
import { SchemaDocument, combineEffects } from './schema-node.util';
import type { NodePair, Site, WalkContext } from './schema-walk.types';

export function schemaPath(base: string, segments: readonly PathSegment[]): string {
  return segments.reduce<string>((path, segment) => appendPath(path, segment), base);
}

export function report(
  pair: NodePair,
  segments: readonly PathSegment[],
  kind: ChangeKind,
  effect: Effect,
  message: string,
  caveat?: Caveat,
  candidates?: unknown[],
): void {
  const change: DetectedChange = {
    path: schemaPath(pair.site.path, segments),
    kind,
    effect,
    message,
    oldNode: pair.o,
    newNode: pair.n,
    wrap: pair.site.wrap,
    ...(caveat === undefined ? {} : { caveat }),
    ...(candidates === undefined ? {} : { candidates }),
  };
  pair.ctx.out.push(change);
}

export function docFor(ctx: WalkContext, side: Side): SchemaDocument {
  return side === 'old' ? ctx.oldDoc : ctx.newDoc;
}

/**
 * The site of a subschema. `place` puts a value for the child into a minimal instance of
 * the parent (for that side), so a witness found deep down becomes a whole instance.
 */
export function childSite(
  pair: NodePair,
  segments: readonly PathSegment[],
  place: (parentValue: unknown, childValue: unknown, side: Side) => unknown,
): Site {
  const { o, n, site, ctx } = pair;
  return {
    path: schemaPath(site.path, segments),
    wrap: (side, value) => {
      const parent = minimalInstance(side === 'old' ? o : n, docFor(ctx, side));
      return site.wrap(side, place(parent, value, side));
    },
  };
}

/** A child the edge's repair walks into (a property, additionalProperties, an array item) fills defaults if its parent does. */
export function fillingSite(pair: NodePair, site: Site, judgedHere = false): Site {
  if (!pair.site.fills) return site;
  return judgedHere ? { ...site, fills: true, defaultJudged: true } : { ...site, fills: true };
}

/** Compares two subschemas aside, returning what changed without reporting it. */
export function compareAside(oldRaw: unknown, newRaw: unknown, site: Site, ctx: WalkContext): DetectedChange[] {
  const aside: WalkContext = { ...ctx, seen: new Set(ctx.seen), out: [] };
  ctx.compare(oldRaw, newRaw, site, aside);
  return aside.out;
}

export function effectOfChanges(changes: readonly DetectedChange[]): Effect {
  return combineEffects(changes.map((change) => change.effect));
}

export function describeValue(value: unknown): string {
  if (value === undefined) return 'absent';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
