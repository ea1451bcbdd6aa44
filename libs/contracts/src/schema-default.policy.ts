import type { ContractIssue } from './contract.types';
import { appendPath, isRecord } from './json-path.util';
import type { JsonSchema } from './schema-dialect.policy';
import { checkSchema, validate } from './schema.validator';

const SINGLE = ['additionalProperties', 'items', 'additionalItems', 'contains', 'propertyNames', 'not', 'if', 'then', 'else', 'unevaluatedProperties', 'unevaluatedItems'];
const MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'];
const LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];

/**
 * Whether `node`'s own `default` validates against `node` itself, read inside `root` (its
 * `$schema` and `$defs`/`definitions`, so local refs still resolve). `undefined` when the node has
 * no default or the question cannot be put to the validator (a ref into another part of the root).
 */
export function defaultProblem(node: Record<string, unknown>, root: JsonSchema): string | undefined | null {
  if (!Object.hasOwn(node, 'default')) return undefined;
  const schema = node === root || !isRecord(root) ? node : withRootContext(node, root);
  if (checkSchema(schema) !== null) return undefined;
  const result = validate(schema, node.default);
  if (result.valid) return null;
  const first = result.errors[0];
  return `${JSON.stringify(node.default)} does not validate against its own schema (${first.path}: ${first.message}); the edge fills it in for callers who omit the value, so their calls would fail`;
}

function withRootContext(node: Record<string, unknown>, root: Record<string, unknown>): Record<string, unknown> {
  const context: Record<string, unknown> = {};
  for (const key of ['$schema', '$defs', 'definitions']) {
    if (Object.hasOwn(root, key) && !Object.hasOwn(node, key)) context[key] = root[key];
  }
  return { ...node, ...context };
}

/** Every `default` in the schema that its own subschema refuses, at the path of the `default`. */
export function invalidDefaultIssues(root: JsonSchema, base: string): ContractIssue[] {
  const issues: ContractIssue[] = [];
  const visit = (node: unknown, path: string): void => {
    if (!isRecord(node)) return;
    const problem = defaultProblem(node, root);
    if (typeof problem === 'string') issues.push({ path: appendPath(path, 'default'), code: 'invalid_default', message: problem });
    for (const key of SINGLE) if (isRecord(node[key])) visit(node[key], appendPath(path, key));
    for (const key of MAPS) {
      const map = node[key];
      if (isRecord(map)) for (const name of Object.keys(map)) visit(map[name], appendPath(appendPath(path, key), name));
    }
    for (const key of LISTS) {
      const list = node[key];
      if (Array.isArray(list)) list.forEach((member, index) => visit(member, appendPath(appendPath(path, key), index)));
    }
  };
  visit(root, base);
  return issues;
}
