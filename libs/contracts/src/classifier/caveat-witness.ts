import { isRecord, ownMember } from '../json-path.util';
import type { JsonSchema } from '../schema-dialect.policy';
import type { DetectedChange } from './classifier.types';
import { minimalInstance } from './minimal-instance';
import { SchemaDocument, propertiesOf } from './schema-node.util';
import { candidateValues } from './witness-candidates';
import { acceptsAsCalled, findWitness } from './witness';

/**
 * The value a caveat is about (see Caveat), for an input schema; `undefined` when none is found
 * within the search bounds. Every value is checked with the real validator against both roots.
 *
 * - `narrows`: one the old contract accepts and the new one rejects, searched as if the change
 *   were the narrowing the strict policy calls it.
 * - `ignored`: one carrying the removed property that both contracts accept.
 */
export function caveatWitness(change: DetectedChange, oldDoc: SchemaDocument, newDoc: SchemaDocument): unknown {
  switch (change.caveat?.kind) {
    case undefined:
      return undefined;
    case 'narrows':
      return findWitness([{ ...change, effect: 'narrower' }], 'input', oldDoc, newDoc);
    case 'ignored':
      return ignoredWitness(change, change.caveat.property, oldDoc, newDoc);
  }
}

const MAX_VALUES_TRIED = 16;

function ignoredWitness(change: DetectedChange, property: string, oldDoc: SchemaDocument, newDoc: SchemaDocument): unknown {
  if (!isSchema(oldDoc.root) || !isSchema(newDoc.root) || !isRecord(change.oldNode)) return undefined;
  const parent = minimalInstance(change.oldNode, oldDoc);
  const base = isRecord(parent) ? parent : {};
  const declared = ownMember(propertiesOf(change.oldNode), property);
  for (const value of candidateValues(declared, oldDoc, undefined).slice(0, MAX_VALUES_TRIED)) {
    const candidate = change.wrap('old', { ...base, [property]: value });
    if (acceptsAsCalled(oldDoc.root, candidate, 'input') && acceptsAsCalled(newDoc.root, candidate, 'input')) {
      return JSON.parse(JSON.stringify(candidate)) as unknown;
    }
  }
  return undefined;
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'boolean' || isRecord(value);
}
