import type { JsonSchema } from '../schema-dialect.policy';
import { withDefaultsFilled } from '../repair';
import { validate } from '../schema.validator';
import { isRecord } from '../json-path.util';
import type { DetectedChange, Side } from './classifier.types';
import { Direction, isBreaking } from './bump-policy';
import type { SchemaDocument } from './schema-node.util';
import { candidateValues } from './witness-candidates';

/** Upper bounds that keep the search cheap on large schemas; a miss means "no witness". */
const MAX_CHANGES_TRIED = 16;
const MAX_VALUES_TRIED = 400;

/**
 * A value that proves a breaking change. For the input direction: the old schema accepts
 * it and the new one rejects it (a call that worked and now fails). For the output
 * direction: the new schema accepts it and the old rejects it (a result a consumer built
 * for the old contract would not expect). Every candidate is checked with the real
 * validator, with the defaults the edge fills in first for input (the edge repairs a call,
 * then validates it); when none passes, there is no witness rather than a wrong one.
 */
export function findWitness(
  changes: readonly DetectedChange[],
  direction: Direction,
  oldDoc: SchemaDocument,
  newDoc: SchemaDocument,
): unknown {
  const side: Side = direction === 'input' ? 'old' : 'new';
  const [accepting, rejecting] = direction === 'input' ? [oldDoc, newDoc] : [newDoc, oldDoc];
  if (!isSchema(accepting.root) || !isSchema(rejecting.root)) return undefined;
  let budget = MAX_VALUES_TRIED;
  for (const change of changes.filter((c) => isBreaking(c, direction)).slice(0, MAX_CHANGES_TRIED)) {
    const [node, other] = side === 'old' ? [change.oldNode, change.newNode] : [change.newNode, change.oldNode];
    for (const value of [...(change.candidates ?? []), ...candidateValues(node, accepting, other)]) {
      if (budget-- <= 0) return undefined;
      const candidate = change.wrap(side, value);
      if (proves(accepting.root, rejecting.root, candidate, direction)) return JSON.parse(JSON.stringify(candidate)) as unknown;
    }
  }
  return undefined;
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'boolean' || isRecord(value);
}

/** The accepting schema takes the value and the rejecting one refuses it, as the edge judges a call for input. */
export function proves(accepting: JsonSchema, rejecting: JsonSchema, value: unknown, direction: Direction): boolean {
  if (!isJsonValue(value)) return false;
  return acceptsAsCalled(accepting, value, direction) && !acceptsAsCalled(rejecting, value, direction);
}

/** The edge fills declared defaults into a call's arguments before it validates them. */
export function acceptsAsCalled(schema: JsonSchema, value: unknown, direction: Direction): boolean {
  return validate(schema, direction === 'input' ? withDefaultsFilled(schema, value) : value).valid;
}

function isJsonValue(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJsonValue);
  return isRecord(value) && Object.values(value).every(isJsonValue);
}
