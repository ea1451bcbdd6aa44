import type { Side } from './classifier.types';
import { childSite, fillingSite } from './change-report';
import { minimalInstance } from './minimal-instance';
import type { SchemaRecord } from './schema-node.util';
import type { NodePair } from './schema-walk.types';

/**
 * items / prefixItems (2020-12) and items-array / additionalItems (draft-07). Each tuple
 * position is compared with the schema that governs it on the other side (its tuple entry
 * or the rest schema), then the rest schemas are compared.
 */
export function arrayRules(pair: NodePair): void {
  const oldShape = arrayShape(pair.o, pair.ctx.oldDoc.draft07);
  const newShape = arrayShape(pair.n, pair.ctx.newDoc.draft07);
  const positions = Math.max(oldShape.tuple.length, newShape.tuple.length);
  for (let index = 0; index < positions; index += 1) {
    const before = index < oldShape.tuple.length ? oldShape.tuple[index] : oldShape.rest;
    const after = index < newShape.tuple.length ? newShape.tuple[index] : newShape.rest;
    const keyword = index < newShape.tuple.length ? newShape.tupleKeyword : oldShape.tupleKeyword;
    const site = fillingSite(pair, childSite(pair, [keyword, index], (parent, value, side) => placeAt(pair, parent, index, value, side)));
    pair.ctx.compare(before, after, site, pair.ctx);
  }
  if (oldShape.restSpecified || newShape.restSpecified) {
    const index = positions;
    const site = fillingSite(pair, childSite(pair, [newShape.restKeyword], (parent, value, side) => placeAt(pair, parent, index, value, side)));
    pair.ctx.compare(oldShape.rest, newShape.rest, site, pair.ctx);
  }
}

interface ArrayShape {
  tuple: unknown[];
  tupleKeyword: string;
  rest: unknown;
  restKeyword: string;
  restSpecified: boolean;
}

function arrayShape(node: SchemaRecord, draft07: boolean): ArrayShape {
  if (draft07) {
    const tupleForm = Array.isArray(node.items);
    const rest = tupleForm ? node.additionalItems : node.items;
    return {
      tuple: tupleForm ? (node.items as unknown[]) : [],
      tupleKeyword: 'items',
      rest: rest ?? true,
      restKeyword: tupleForm ? 'additionalItems' : 'items',
      restSpecified: rest !== undefined,
    };
  }
  const tuple = Array.isArray(node.prefixItems) ? node.prefixItems : [];
  return { tuple, tupleKeyword: 'prefixItems', rest: node.items ?? true, restKeyword: 'items', restSpecified: node.items !== undefined };
}

/** An array (of this side's minimal shape) with `value` at `index`, earlier slots filled minimally. */
function placeAt(pair: NodePair, parent: unknown, index: number, value: unknown, side: Side): unknown[] {
  const node = side === 'old' ? pair.o : pair.n;
  const doc = side === 'old' ? pair.ctx.oldDoc : pair.ctx.newDoc;
  const shape = arrayShape(node, doc.draft07);
  const out = Array.isArray(parent) ? [...parent] : [];
  while (out.length < index) {
    const slot = out.length < shape.tuple.length ? shape.tuple[out.length] : shape.rest;
    const filler = minimalInstance(slot, doc);
    out.push(filler === undefined ? null : filler);
  }
  out[index] = value;
  return out;
}
