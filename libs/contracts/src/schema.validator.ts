import Ajv, { ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ContractIssue } from './contract.types';
import { formatPath, isRecord, type PathSegment } from './json-path.util';
import { linearPatternProblem, linearRegExpEngine } from './pattern.engine';
import { JsonSchema, SchemaDialect, checkSchemaDialect, schemaDialectOf } from './schema-dialect.policy';
import { RememberedTranslator, ValidationError } from './schema-error.translator';
import { hashText, stableStringify } from './schema-hash.util';

export type ValidationResult = { valid: true } | { valid: false; errors: ValidationError[] };

/** A schema compiled once; hot paths hold this and call it per value. */
export type CompiledValidator = (value: unknown) => ValidationResult;

interface CompiledEntry {
  validator: CompiledValidator;
  issue: ContractIssue | null;
}

/** Upper bound on distinct schemas kept compiled; the least recently used is evicted. */
export const VALIDATOR_CACHE_LIMIT = 1024;

const VALID: ValidationResult = Object.freeze({ valid: true });
const byObject = new WeakMap<object, CompiledEntry>();
const byContent = new Map<string, { canonical: string; entry: CompiledEntry }>();
let engines: Record<SchemaDialect, Ajv> | undefined;
let ownEngines: Record<SchemaDialect, Ajv> | undefined;
let lastSchema: JsonSchema | undefined;
let lastValidator: CompiledValidator = () => VALID;

function createEngines(ownProperties: boolean): Record<SchemaDialect, Ajv> {
  // logger: false keeps this library silent (ajv would warn on unknown formats); patterns run
  // on a linear-time engine, since callers choose the text they are tested against.
  const options = { allErrors: true, strict: false, logger: false, ownProperties, code: { regExp: linearRegExpEngine } } as const;
  const created = { '2020-12': new Ajv2020(options), 'draft-07': new Ajv(options) };
  addFormats(created['2020-12']);
  addFormats(created['draft-07']);
  return created;
}

/**
 * A schema naming a member every object inherits (`constructor`, `toString`, `__proto__`, …)
 * needs ajv's ownProperties: without it ajv reads `{}.constructor` as a property sent, so a declared
 * `constructor` refused every value and a required one was always met. Every other schema is
 * compiled without it: own-property checks cost half as much again on every call (0.38 against
 * 0.59 µs for a payment, /tmp/ownprops.js), for names a JSON object can only have as its own.
 */
function engineFor(dialect: SchemaDialect, ownProperties: boolean): Ajv {
  if (ownProperties) return (ownEngines ??= createEngines(true))[dialect];
  return (engines ??= createEngines(false))[dialect];
}

const INHERITED: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));
/** Keywords whose keys or items name properties a value is looked up by. */
const NAMING_KEYWORDS = ['properties', 'required', 'dependentRequired', 'dependentSchemas', 'dependencies'];

/** Whether any schema in the tree names an inherited member as a property (compile time only; depth is bounded by the parser). */
function namesInheritedMember(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(namesInheritedMember);
  if (node === null || typeof node !== 'object') return false;
  const schema = node as Record<string, unknown>;
  for (const keyword of NAMING_KEYWORDS) {
    const named = schema[keyword];
    if (Array.isArray(named) ? named.some((name) => typeof name === 'string' && INHERITED.has(name))
      : named !== null && typeof named === 'object' && Object.keys(named).some((name) => INHERITED.has(name)
        || (keyword === 'dependentRequired' && namesInheritedMember({ required: (named as Record<string, unknown>)[name] })))) return true;
  }
  return Object.entries(schema).some(([key, child]) => !DATA_KEYWORDS.has(key) && namesInheritedMember(child));
}

/**
 * Compiles (or finds in the cache) the validator for a schema. Lookup is by object
 * identity first, then by a hash of the schema's canonical JSON, so equal schemas share
 * one compiled function. Schemas are treated as immutable once compiled.
 */
export function compileValidator(schema: JsonSchema): CompiledValidator {
  return entryFor(schema).validator;
}

/** Validates a value, reporting every error, sorted by path then keyword. */
export function validate(schema: JsonSchema, value: unknown): ValidationResult {
  // A hot loop usually validates against one schema; an identity check beats the WeakMap.
  if (schema !== lastSchema) {
    lastValidator = entryFor(schema).validator;
    lastSchema = schema;
  }
  return lastValidator(value);
}

/**
 * Whether `format` rejects any string here: ajv ignores a format it does not know (`iban`), and
 * some known ones (`password`, `binary`) accept every string.
 */
export function formatAsserted(format: string): boolean {
  const known = Object.hasOwn(engineFor('2020-12', false).formats, format) ? engineFor('2020-12', false).formats[format] : undefined;
  return known !== undefined && known !== true;
}

/** `null` when the schema can be used; otherwise why not (dialect refused, schema invalid). */
export function checkSchema(schema: JsonSchema): ContractIssue | null {
  return entryFor(schema).issue;
}

function entryFor(schema: JsonSchema): CompiledEntry {
  if (typeof schema === 'boolean') return schema ? ACCEPT_ALL : REJECT_ALL;
  const known = byObject.get(schema);
  if (known) return known;
  const entry = entryByContent(schema);
  byObject.set(schema, entry);
  return entry;
}

function entryByContent(schema: Record<string, unknown>): CompiledEntry {
  const canonical = stableStringify(schema);
  const key = hashText(canonical);
  const hit = byContent.get(key);
  if (hit && hit.canonical === canonical) {
    byContent.delete(key);
    byContent.set(key, hit);
    return hit.entry;
  }
  const entry = build(schema);
  byContent.set(key, { canonical, entry });
  if (byContent.size > VALIDATOR_CACHE_LIMIT) {
    const oldest = byContent.keys().next().value;
    if (oldest !== undefined) byContent.delete(oldest);
  }
  return entry;
}

function build(schema: Record<string, unknown>): CompiledEntry {
  const dialect = schemaDialectOf(schema);
  if (dialect === undefined) {
    const issue = checkSchemaDialect(schema) as ContractIssue;
    return refusing(issue, '$schema');
  }
  const patternIssue = unsupportedPattern(schema, []);
  if (patternIssue) return refusing(patternIssue, 'pattern');
  const engine = engineFor(dialect, namesInheritedMember(schema));
  let compiled: ValidateFunction;
  try {
    compiled = engine.compile(schema);
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    return refusing({ path: '$', code: 'invalid_schema', message: `schema cannot be compiled: ${message}` }, 'schema');
  } finally {
    // The compiled function keeps what it needs; dropping ajv's own registry keeps memory
    // bounded by our cache and lets a later schema reuse the same $id.
    engine.removeSchema(schema);
  }
  return { validator: wrap(compiled), issue: null };
}

/** Values under these keywords are data, not schemas: a "pattern" key there is not a pattern. */
export const DATA_KEYWORDS: ReadonlySet<string> = new Set(['const', 'enum', 'default', 'examples']);

/** The first `pattern` or `patternProperties` key the linear-time engine cannot run, with its path. */
function unsupportedPattern(node: unknown, path: PathSegment[]): ContractIssue | null {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i += 1) {
      const issue = unsupportedPattern(node[i], [...path, i]);
      if (issue) return issue;
    }
    return null;
  }
  if (!isRecord(node)) return null;
  for (const [key, value] of Object.entries(node)) {
    if (DATA_KEYWORDS.has(key)) continue;
    const problem = key === 'pattern' && typeof value === 'string' ? linearPatternProblem(value) : undefined;
    if (problem) return { path: formatPath([...path, key]), code: 'unsupported_pattern', message: problem };
    if (key === 'patternProperties' && isRecord(value)) {
      const bad = Object.keys(value).find((p) => linearPatternProblem(p) !== undefined);
      if (bad !== undefined) return { path: formatPath([...path, key, bad]), code: 'unsupported_pattern', message: linearPatternProblem(bad) as string };
    }
    const issue = unsupportedPattern(value, [...path, key]);
    if (issue) return issue;
  }
  return null;
}

function wrap(compiled: ValidateFunction): CompiledValidator {
  const translator = new RememberedTranslator();
  return (value) =>
    compiled(value) ? VALID : { valid: false, errors: translator.translate(compiled.errors ?? [], value) };
}

function refusing(issue: ContractIssue, keyword: string): CompiledEntry {
  const errors: ValidationError[] = [{ path: '$', keyword, message: issue.message }];
  return { validator: () => ({ valid: false, errors: errors.map((e) => ({ ...e })) }), issue };
}

const ACCEPT_ALL: CompiledEntry = { validator: () => VALID, issue: null };
const REJECT_ALL: CompiledEntry = {
  validator: () => ({
    valid: false,
    errors: [{ path: '$', keyword: 'false schema', message: 'no value is allowed here' }],
  }),
  issue: null,
};

export type { ValidationError } from './schema-error.translator';
