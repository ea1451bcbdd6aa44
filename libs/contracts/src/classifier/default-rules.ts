import { isRecord, ownMember } from '../json-path.util';
import type { JsonSchema } from '../schema-dialect.policy';
import { defaultProblem } from '../schema-default.policy';
import { resolveLocalSchema } from '../schema-ref.util';
import type { Effect, Side } from './classifier.types';
import { describeValue, docFor, report } from './change-report';
import { minimalInstance } from './minimal-instance';
import { SchemaRecord, propertiesOf, requiredOf, sameJson } from './schema-node.util';
import type { NodePair } from './schema-walk.types';

/**
 * The edge repairs a call before validating it, filling the default of every declared property
 * the caller left out (see repair.ts). So a default is part of what a required property accepts:
 * removing it refuses calls that omitted the property, adding one (valid) accepts them.
 */

/**
 * Keywords of the object itself that can see a filled property (its presence or its value):
 * beside them, a default change cannot be judged from the property alone.
 */
const SEES_FILLED = [
  'minProperties', 'maxProperties', 'dependentRequired', 'dependentSchemas', 'dependencies', 'propertyNames',
  'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'unevaluatedProperties', 'const', 'enum',
];

function seesFilled(pair: NodePair): boolean {
  return SEES_FILLED.some((key) => Object.hasOwn(pair.o, key) || Object.hasOwn(pair.n, key));
}

type Filled = { value: unknown; valid: boolean | undefined };

/** The default the edge fills for `name` on that side, and whether it validates (`undefined`: unknown). */
function filledDefault(pair: NodePair, side: Side, name: string): Filled | undefined {
  if (!pair.site.fills) return undefined;
  const node = side === 'old' ? pair.o : pair.n;
  const root = docFor(pair.ctx, side).root as JsonSchema;
  const declared = ownMember(propertiesOf(node), name);
  const resolved = declared === undefined ? undefined : resolveLocalSchema(declared as JsonSchema, root);
  if (!resolved || !Object.hasOwn(resolved, 'default')) return undefined;
  const problem = defaultProblem(resolved, root);
  return { value: resolved.default, valid: problem === null ? true : problem === undefined ? undefined : false };
}

/**
 * Whether a value that omits `name` still passes because the new side fills a default that
 * validates. Only when nothing else on the object can see the filled value: otherwise unproven.
 */
export function newDefaultSatisfies(pair: NodePair, name: string): boolean {
  return filledDefault(pair, 'new', name)?.valid === true && !seesFilled(pair);
}

/** Did the old side accept values without `name` (not required, or a default filled in)? Lenient: a breaking change must not hide. */
function oldAcceptsAbsence(pair: NodePair, name: string): boolean {
  if (!requiredOf(pair.o).has(name)) return true;
  const filled = filledDefault(pair, 'old', name);
  return filled !== undefined && filled.valid !== false;
}

function newAcceptsAbsence(pair: NodePair, name: string): boolean {
  return !requiredOf(pair.n).has(name) || newDefaultSatisfies(pair, name);
}

/** A property declared on both sides whose filled default differs (see the module comment). */
export function defaultRule(pair: NodePair, name: string): void {
  if (!pair.site.fills) return;
  const before = filledDefault(pair, 'old', name);
  const after = filledDefault(pair, 'new', name);
  if (sameJson(before?.value, after?.value) && before?.valid === after?.valid) return;
  const from = describeValue(before?.value);
  const to = describeValue(after?.value);
  const segments = ['properties', name, 'default'];
  if (seesFilled(pair)) {
    const text = `${name}: default changed from ${from} to ${to}, and the object's other keywords can see the value the edge fills in: cannot be proven compatible`;
    report(pair, segments, 'default-changed', 'both', text);
    return;
  }
  const sameRequired = requiredOf(pair.o).has(name) === requiredOf(pair.n).has(name);
  const [was, is] = [oldAcceptsAbsence(pair, name), newAcceptsAbsence(pair, name)];
  let effect: Effect = 'neutral';
  let why = `calls that omit ${name} now send ${to} upstream`;
  // A change of requiredness is judged by requiredOnlyRule, defaults included.
  if (sameRequired && was && !is) {
    effect = 'narrower';
    why = `${name} is required and the edge no longer fills a valid value in, so calls that omit it are rejected`;
  } else if (sameRequired && !was && is) {
    effect = 'wider';
    why = `the edge now fills the required ${name} in, so calls that omit it are accepted`;
  }
  const candidates = effect === 'narrower' ? [withoutProperty(minimalInstance(pair.o, pair.ctx.oldDoc), name)] : undefined;
  report(pair, segments, 'default-changed', effect, `${name}: default changed from ${from} to ${to}: ${why}`, undefined, candidates);
}

function withoutProperty(value: unknown, name: string): unknown {
  if (!isRecord(value)) return {};
  const copy: SchemaRecord = { ...value };
  delete copy[name];
  return copy;
}
