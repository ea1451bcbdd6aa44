import fc from 'fast-check';
import { validate } from '../schema.validator';

/** Random object schemas and the mutations the property tests apply to them. */

export type PropertySchema = Record<string, unknown>;
export interface ObjectSchema {
  type: 'object';
  properties: Record<string, PropertySchema>;
  required: string[];
  additionalProperties?: boolean;
}

const optionalInt = (min: number, max: number) => fc.option(fc.integer({ min, max }), { nil: undefined });

function clean(record: Record<string, unknown>): PropertySchema {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}

const integerArb = fc
  .record({ minimum: optionalInt(-5, 5), span: fc.integer({ min: 0, max: 10 }), bounded: fc.boolean(), multipleOf: fc.option(fc.constantFrom(1, 2, 3), { nil: undefined }) })
  .map(({ minimum, span, bounded, multipleOf }) =>
    clean({ type: 'integer', minimum, maximum: bounded ? (minimum ?? 0) + span : undefined, multipleOf }));
const numberArb = fc
  .record({ minimum: optionalInt(-5, 5), exclusiveMaximum: optionalInt(6, 15) })
  .map((bounds) => clean({ type: 'number', ...bounds }));
const stringArb = fc
  .record({ minLength: optionalInt(0, 2), extra: optionalInt(0, 4), pattern: fc.option(fc.constantFrom('^a', '^[a-z]*$', 'b'), { nil: undefined }) })
  .map(({ minLength, extra, pattern }) =>
    clean({ type: 'string', minLength, maxLength: extra === undefined ? undefined : (minLength ?? 0) + extra, pattern }));
const enumArb = fc.subarray(['a', 'b', 'c', 1, 2], { minLength: 1 }).map((values) => ({ enum: values }));
const arrayArb = fc
  .record({ minItems: optionalInt(0, 2), maxItems: optionalInt(2, 4), uniqueItems: fc.option(fc.constant(true), { nil: undefined }) })
  .map((bounds) => clean({ type: 'array', items: { type: 'integer', minimum: 0, maximum: 5 }, ...bounds }));

export const propertySchemaArb: fc.Arbitrary<PropertySchema> = fc.oneof(
  integerArb,
  numberArb,
  stringArb,
  fc.constant({ type: 'boolean' }),
  enumArb,
  arrayArb,
);

export const objectSchemaArb: fc.Arbitrary<ObjectSchema> = fc
  .tuple(fc.array(propertySchemaArb, { minLength: 1, maxLength: 4 }), fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }), fc.constantFrom(undefined, true, false))
  .map(([props, requiredFlags, additionalProperties]) => {
    const properties = Object.fromEntries(props.map((schema, i) => [`p${i}`, schema]));
    const required = Object.keys(properties).filter((_, i) => requiredFlags[i]);
    const schema: ObjectSchema = { type: 'object', properties, required };
    return additionalProperties === undefined ? schema : { ...schema, additionalProperties };
  });

export const BREAKING_MUTATIONS = [
  'add-required', 'make-required', 'type-change', 'narrow-type', 'enum-narrow', 'tighten-lower',
  'tighten-upper', 'pattern-add', 'unique-on', 'close-ap', 'multiple-tighten',
] as const;
export const LOOSENING_MUTATIONS = [
  'add-optional', 'remove-prop', 'make-optional', 'widen-type', 'enum-widen', 'loosen-lower',
  'loosen-upper', 'pattern-remove', 'unique-off', 'open-ap', 'multiple-loosen',
] as const;
export const ANNOTATION_MUTATIONS = ['title', 'description', 'default'] as const;
export const MUTATIONS = [...BREAKING_MUTATIONS, ...LOOSENING_MUTATIONS, ...ANNOTATION_MUTATIONS];
export type Mutation = (typeof MUTATIONS)[number];

/**
 * Schemas `add-optional` declares (chosen by `pick`). All but the last two accept fewer values
 * than an open schema did under the new name.
 */
export const ADDED_SCHEMAS: readonly PropertySchema[] = [
  { type: 'integer' },
  { type: 'string' },
  { type: 'string', maxLength: 2 },
  { enum: ['a', 1] },
  { type: ['integer', 'null'] },
  { type: 'boolean' },
  { type: 'array', items: { type: 'integer' } },
  { description: 'free text' },
  {},
];
const addedSchema = (pick: number): PropertySchema => ADDED_SCHEMAS[pick % ADDED_SCHEMAS.length];
const acceptsAnything = (schema: PropertySchema) => Object.keys(schema).every((key) => key === 'description');

/**
 * What the rules say the mutation needs under a policy. Removing a property is always major
 * (refused where the schema is closed, silently ignored where it is open). Declaring an optional
 * property on an open schema is minor under `standard` and, when the declaration accepts fewer
 * values, major under `strict`.
 */
export function expectedBump(before: ObjectSchema, mutation: Mutation, pick: number, policy: 'standard' | 'strict'): 'major' | 'minor' | 'patch' {
  if ((BREAKING_MUTATIONS as readonly string[]).includes(mutation) || mutation === 'remove-prop') return 'major';
  if (mutation === 'add-optional') {
    const narrows = before.additionalProperties !== false && !acceptsAnything(addedSchema(pick));
    return narrows && policy === 'strict' ? 'major' : 'minor';
  }
  if (mutation === 'default') return fillsRequired(before, pick) ? 'minor' : 'patch';
  if (mutation === 'title') return 'patch';
  return 'minor';
}

/**
 * A default is an annotation, except that the edge fills it in before validating: a valid one
 * on a required property makes calls that omit the property pass, a looser contract.
 */
function fillsRequired(before: ObjectSchema, pick: number): boolean {
  const names = Object.keys(before.properties);
  const name = names[pick % names.length];
  const prop = before.properties[name];
  return before.required.includes(name) && !Object.hasOwn(prop, 'default') && validate(prop, 1 + (pick % 3)).valid;
}

const LOWER: Record<string, string> = { integer: 'minimum', number: 'minimum', string: 'minLength', array: 'minItems' };
const UPPER: Record<string, string> = { integer: 'maximum', number: 'exclusiveMaximum', string: 'maxLength', array: 'maxItems' };
const OTHER_TYPE: Record<string, string> = { integer: 'string', number: 'boolean', string: 'integer', boolean: 'string', array: 'object' };

/** Applies one mutation to one property (chosen by `pick`); `undefined` when it does not apply. */
export function mutate(before: ObjectSchema, mutation: Mutation, pick: number): ObjectSchema | undefined {
  const after = structuredClone(before);
  const names = Object.keys(after.properties);
  const name = names[pick % names.length];
  const prop = after.properties[name];
  const type = typeof prop.type === 'string' ? prop.type : 'enum';
  const isRequired = after.required.includes(name);
  const step = 1 + (pick % 3);
  switch (mutation) {
    case 'add-required':
      after.properties.pNew = { type: 'string' };
      after.required.push('pNew');
      return after;
    case 'add-optional':
      after.properties.pNew = structuredClone(addedSchema(pick));
      return after;
    case 'remove-prop':
      delete after.properties[name];
      after.required = after.required.filter((r) => r !== name);
      return after;
    case 'make-required':
      return isRequired ? undefined : { ...after, required: [...after.required, name] };
    case 'make-optional':
      return isRequired ? { ...after, required: after.required.filter((r) => r !== name) } : undefined;
    case 'type-change':
      after.properties[name] = { type: OTHER_TYPE[type] ?? 'boolean' };
      return after;
    case 'narrow-type':
      return type === 'number' ? setKey(after, name, 'type', 'integer') : undefined;
    case 'widen-type':
      return type === 'integer' ? setKey(after, name, 'type', 'number') : undefined;
    default: {
      const changed = mutateKeyword(after, name, prop, type, mutation, step);
      return changed && JSON.stringify(changed) !== JSON.stringify(before) ? changed : undefined;
    }
  }
}

function setKey(schema: ObjectSchema, name: string, key: string, value: unknown): ObjectSchema {
  const prop = { ...schema.properties[name] };
  if (value === undefined) delete prop[key];
  else prop[key] = value;
  return { ...schema, properties: { ...schema.properties, [name]: prop } };
}

function mutateKeyword(after: ObjectSchema, name: string, prop: PropertySchema, type: string, mutation: Mutation, step: number): ObjectSchema | undefined {
  const lower = LOWER[type];
  const upper = UPPER[type];
  const num = (key: string) => (typeof prop[key] === 'number' ? (prop[key] as number) : undefined);
  const values = Array.isArray(prop.enum) ? prop.enum : undefined;
  const floor = type === 'integer' || type === 'number' ? -Infinity : 0;
  switch (mutation) {
    case 'enum-narrow':
      return values && values.length > 1 ? setKey(after, name, 'enum', values.slice(1)) : undefined;
    case 'enum-widen':
      return values ? setKey(after, name, 'enum', [...values, 'zz']) : undefined;
    case 'tighten-lower':
      return lower ? setKey(after, name, lower, (num(lower) ?? (floor === 0 ? 0 : -30)) + step) : undefined;
    case 'loosen-lower':
      return lower && num(lower) !== undefined ? setKey(after, name, lower, step === 3 ? undefined : Math.max(floor, num(lower)! - step)) : undefined;
    case 'tighten-upper':
      return upper ? setKey(after, name, upper, Math.max(floor, (num(upper) ?? 30) - step)) : undefined;
    case 'loosen-upper':
      return upper && num(upper) !== undefined ? setKey(after, name, upper, step === 3 ? undefined : num(upper)! + step) : undefined;
    case 'pattern-add':
      return type === 'string' ? setKey(after, name, 'pattern', prop.pattern === '^c' ? '^d' : '^c') : undefined;
    case 'pattern-remove':
      return prop.pattern !== undefined ? setKey(after, name, 'pattern', undefined) : undefined;
    case 'unique-on':
      return type === 'array' && prop.uniqueItems !== true ? setKey(after, name, 'uniqueItems', true) : undefined;
    case 'unique-off':
      return prop.uniqueItems === true ? setKey(after, name, 'uniqueItems', undefined) : undefined;
    case 'close-ap':
      return after.additionalProperties === false ? undefined : { ...after, additionalProperties: false };
    case 'open-ap':
      return after.additionalProperties === false ? { ...after, additionalProperties: true } : undefined;
    case 'multiple-tighten':
      return type === 'integer' ? setKey(after, name, 'multipleOf', (num('multipleOf') ?? 1) * (step + 1)) : undefined;
    case 'multiple-loosen':
      return type === 'integer' && (num('multipleOf') ?? 1) > 1 ? setKey(after, name, 'multipleOf', 1) : undefined;
    case 'title':
      return setKey(after, name, 'title', `t${step}`);
    case 'description':
      return setKey(after, name, 'description', `d${step}`);
    default:
      return setKey(after, name, 'default', step);
  }
}
