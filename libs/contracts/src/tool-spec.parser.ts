import { ContractIssue, Result, fail, ok } from './contract.types';
import { appendPath, comparePaths, compareText, isRecord } from './json-path.util';
import { DATA_KEYWORDS } from './schema.validator';
import { isStrictVersion } from './semver.policy';
import { DATA_CLASSIFICATIONS, DataClassification, SIDE_EFFECTS, SideEffect, ToolSpec } from './tool-spec';

const KNOWN_FIELDS: ReadonlySet<string> = new Set([
  'name',
  'version',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'sideEffect',
  'requiredScopes',
  'dataClassification',
  'tenants',
  'owner',
  'upstream',
]);

type Issues = ContractIssue[];

/**
 * Checks the shape of an untrusted tool spec and lists every problem at once, sorted by
 * path. `sideEffect` has no default on purpose (a silent `read` would make a payment
 * retryable); unknown fields are refused so a misspelt `required_scopes` cannot quietly
 * publish a tool with no scopes. Naming and description rules live in `lintToolSpec`.
 */
export function parseToolSpec(input: unknown): Result<ToolSpec, ContractIssue[]> {
  if (!isRecord(input)) return fail([issue('$', 'type', 'a tool spec must be a JSON object')]);
  const issues: Issues = [];
  for (const key of Object.keys(input)) {
    if (!KNOWN_FIELDS.has(key)) issues.push(issue(appendPath('$', key), 'unknown_field', 'is not a ToolSpec field'));
  }
  const spec = {
    name: requiredString(input, 'name', issues),
    version: versionField(input, issues),
    title: optionalString(input, 'title', issues),
    description: requiredString(input, 'description', issues),
    inputSchema: schemaField(input, 'inputSchema', true, issues),
    outputSchema: schemaField(input, 'outputSchema', false, issues),
    sideEffect: enumField<SideEffect>(input, 'sideEffect', SIDE_EFFECTS, issues),
    requiredScopes: stringList(input, 'requiredScopes', issues),
    dataClassification: enumField<DataClassification>(input, 'dataClassification', DATA_CLASSIFICATIONS, issues),
    tenants: stringList(input, 'tenants', issues),
    owner: requiredString(input, 'owner', issues),
    upstream: upstreamField(input, issues),
  };
  if (issues.length > 0) return fail(sortIssues(issues));
  // With no issues every required field was read, so the object is a complete ToolSpec.
  return ok(dropUndefined(spec) as unknown as ToolSpec);
}

/**
 * How deep a schema's objects and arrays may nest (32 levels of properties take 64). Far beyond
 * any real contract, and it keeps every later step (compiling, classifying, hashing, the edge's
 * validation) inside its stack: 2,000 levels reached the validator and answered 500.
 */
export const MAX_SCHEMA_DEPTH = 64;

/**
 * How many members (object members and array items, keywords included) one schema may hold: a
 * thousand described properties fit. The values of `enum`, `const`, `default` and `examples` are
 * data and do not count (an enum of 95,000 values compiles in 65 ms). Compiling a schema costs the validator (ajv) 0.1 to 0.3 ms a
 * member, and checking each call grows with it too: 80,000 members (40,000 typed properties) held
 * the registry's event loop for 10 to 26 seconds; 5,000 take about half a second (profiled).
 */
export const MAX_SCHEMA_MEMBERS = 5_000;

/** Keywords whose value maps names to schemas: a property called `enum` is a schema like any other. */
const NAME_MAPS: ReadonlySet<string> = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/** Numbers JSON cannot hold listed at most; a body of `1e400`s is refused just the same. */
const MAX_NUMBER_ISSUES = 16;

/**
 * One walk over a schema, without recursion: the first object or array nested deeper than
 * MAX_SCHEMA_DEPTH, more than MAX_SCHEMA_MEMBERS members, and numbers that are not finite.
 * JSON.parse reads `1e400` as Infinity, which JSON cannot write back: it would be stored and
 * served as `null`, an invalid schema for every agent.
 */
function schemaValueIssues(root: Record<string, unknown>, path: string): Issues {
  const issues: Issues = [];
  let numberIssues = 0;
  let members = 0;
  // `names`: the object's keys are property names (under `properties`, `$defs`, …), so none of them is a keyword.
  type Entry = { value: object; path: string; depth: number; data: boolean; names: boolean };
  const stack: Entry[] = [{ value: root, path, depth: 1, data: false, names: false }];
  while (stack.length > 0) {
    const { value, path: at, depth, data, names } = stack.pop() as Entry;
    if (depth > MAX_SCHEMA_DEPTH) {
      issues.push(issue(at, 'too_deep', `nests objects and arrays more than ${MAX_SCHEMA_DEPTH} levels deep`));
      return issues;
    }
    const keys = Array.isArray(value) ? undefined : Object.keys(value);
    // Values (an enum's list, a const, a default, examples) are data the validator compares, not schema it compiles.
    if (!data) members += keys === undefined ? (value as unknown[]).length : keys.length;
    if (members > MAX_SCHEMA_MEMBERS) {
      const what = 'object members and array items, keywords included';
      issues.push(issue(path, 'too_large', `holds more than ${MAX_SCHEMA_MEMBERS} members (${what}); split the tool or simplify its schema`));
      return issues;
    }
    const visit = (key: string | number, child: unknown) => {
      if (child !== null && typeof child === 'object') {
        const keyword = keys !== undefined && !names ? (key as string) : undefined;
        stack.push({
          value: child, path: appendPath(at, key), depth: depth + 1,
          data: data || (keyword !== undefined && DATA_KEYWORDS.has(keyword)), names: !data && keyword !== undefined && NAME_MAPS.has(keyword),
        });
      } else if (typeof child === 'number' && !Number.isFinite(child) && numberIssues++ < MAX_NUMBER_ISSUES) {
        issues.push(issue(appendPath(at, key), 'not_finite', `is too large for a JSON number: it reads as ${String(child)}, which would be stored and served as null`));
      }
    };
    if (keys === undefined) (value as unknown[]).forEach((child, index) => visit(index, child));
    else for (const key of keys) visit(key, (value as Record<string, unknown>)[key]);
  }
  return issues;
}

export function sortIssues(issues: readonly ContractIssue[]): ContractIssue[] {
  return [...issues].sort(
    (a, b) => comparePaths(a.path, b.path) || compareText(a.code, b.code) || compareText(a.message, b.message),
  );
}

function issue(path: string, code: string, message: string): ContractIssue {
  return { path, code, message };
}

function requiredString(input: Record<string, unknown>, key: string, issues: Issues, base = '$'): string | undefined {
  const path = appendPath(base, key);
  const value = input[key];
  if (value === undefined) issues.push(issue(path, 'required', 'is required'));
  else if (typeof value !== 'string') issues.push(issue(path, 'type', 'must be a string'));
  else if (value.trim() === '') issues.push(issue(path, 'empty', 'must not be empty'));
  else return value;
  return undefined;
}

function optionalString(input: Record<string, unknown>, key: string, issues: Issues): string | undefined {
  return input[key] === undefined ? undefined : requiredString(input, key, issues);
}

function versionField(input: Record<string, unknown>, issues: Issues): string | undefined {
  const version = requiredString(input, 'version', issues);
  if (version !== undefined && isStrictVersion(version)) {
    // Build metadata takes no part in precedence: 1.1.0+build.5 would be reached as 1.1.0 by no route and pinned by no range.
    const build = version.indexOf('+');
    if (build < 0) return version;
    issues.push(issue('$.version', 'build_metadata', `build metadata takes no part in version precedence; publish ${version.slice(0, build)} (and keep the build in the description or your release notes)`));
    return undefined;
  }
  if (version !== undefined) issues.push(issue('$.version', 'invalid_version', 'must be a SemVer 2.0.0 version such as 1.2.0'));
  return undefined;
}

function schemaField(
  input: Record<string, unknown>,
  key: string,
  required: boolean,
  issues: Issues,
): Record<string, unknown> | undefined {
  const value = input[key];
  const path = appendPath('$', key);
  if (value === undefined) {
    if (required) issues.push(issue(path, 'required', 'is required'));
    return undefined;
  }
  if (!isRecord(value)) {
    issues.push(issue(path, 'type', 'must be a JSON Schema object'));
    return undefined;
  }
  const found = schemaValueIssues(value, path);
  issues.push(...found);
  return found.length === 0 ? value : undefined;
}

function enumField<T extends string>(
  input: Record<string, unknown>,
  key: string,
  allowed: readonly T[],
  issues: Issues,
): T | undefined {
  const value = input[key];
  const path = appendPath('$', key);
  if (value === undefined) {
    issues.push(issue(path, 'required', `is required (one of ${allowed.join(', ')}); there is no default`));
  } else if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    issues.push(issue(path, 'enum', `must be one of ${allowed.join(', ')}`));
  } else {
    return value as T;
  }
  return undefined;
}

/** Absent means "none" (an empty list); present but malformed is an error, never a default. */
function stringList(input: Record<string, unknown>, key: string, issues: Issues): string[] {
  const value = input[key];
  const path = appendPath('$', key);
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    issues.push(issue(path, 'type', 'must be an array of strings'));
    return [];
  }
  const seen = new Set<string>();
  value.forEach((item, index) => {
    const itemPath = appendPath(path, index);
    if (typeof item !== 'string' || item.trim() === '') issues.push(issue(itemPath, 'type', 'must be a non-empty string'));
    else if (seen.has(item)) issues.push(issue(itemPath, 'duplicate', `repeats ${JSON.stringify(item)}`));
    else seen.add(item);
  });
  return [...seen];
}

function upstreamField(input: Record<string, unknown>, issues: Issues): ToolSpec['upstream'] | undefined {
  const value = input.upstream;
  if (value === undefined) {
    issues.push(issue('$.upstream', 'required', 'is required'));
    return undefined;
  }
  if (!isRecord(value)) {
    issues.push(issue('$.upstream', 'type', 'must be an object with server and tool'));
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (key !== 'server' && key !== 'tool') issues.push(issue(appendPath('$.upstream', key), 'unknown_field', 'is not an upstream field'));
  }
  // The server is the namespace; an admin-registered server may have the empty namespace.
  const server = value.server;
  if (typeof server !== 'string') {
    issues.push(issue('$.upstream.server', server === undefined ? 'required' : 'type', 'must be a string'));
  }
  const tool = requiredString(value, 'tool', issues, '$.upstream');
  return typeof server === 'string' && tool !== undefined ? { server, tool } : undefined;
}

function dropUndefined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));
}
