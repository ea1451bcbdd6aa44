import type { ContractIssue } from './contract.types';
import { inspectPromptText } from './prompt-text.rules';
import { inspectPromptTree } from './prompt-text.walker';
import { appendPath, isRecord } from './json-path.util';
import { invalidDefaultIssues } from './schema-default.policy';
import { checkSchema } from './schema.validator';
import { sortIssues } from './tool-spec.parser';
import type { ToolSpec } from './tool-spec';

export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

export interface LintOptions {
  /** The registered server's namespace; '' means bare tool names are allowed. */
  namespace: string;
  /** The server a tool in this namespace must route to; defaults to the namespace. */
  server?: string;
}

type LintSpec = Pick<
  ToolSpec,
  'name' | 'title' | 'description' | 'inputSchema' | 'outputSchema' | 'requiredScopes' | 'tenants' | 'owner' | 'upstream'
>;

/**
 * Publish-time rules beyond shape: naming and namespace, routing, schema roots and
 * dialect, and the hygiene of every text a model will read. Returns all issues, sorted.
 */
export function lintToolSpec(spec: LintSpec, options: LintOptions): ContractIssue[] {
  const issues = [
    ...lintName(spec, options),
    ...lintUpstream(spec, options),
    ...lintScopes(spec),
    ...lintSchema(spec.inputSchema, '$.inputSchema'),
    ...(spec.outputSchema !== undefined ? lintSchema(spec.outputSchema, '$.outputSchema') : []),
    ...lintTexts(spec),
  ];
  return sortIssues(issues);
}

function lintName(spec: LintSpec, { namespace }: LintOptions): ContractIssue[] {
  if (!TOOL_NAME_PATTERN.test(spec.name)) {
    return [{ path: '$.name', code: 'invalid_name', message: 'must be 1-128 characters of A-Z, a-z, 0-9, "_", "." or "-"' }];
  }
  const prefix = `${namespace}.`;
  // An empty segment (`payments..x`, `.x`, `x.`) names no tool: refused like a name without its own part.
  const emptySegment = spec.name.split('.').includes('');
  if (namespace !== '' && (!spec.name.startsWith(prefix) || emptySegment)) {
    return [{ path: '$.name', code: 'namespace_mismatch', message: `must start with "${prefix}" followed by the tool's own name, with no empty segment between dots` }];
  }
  if (emptySegment) return [{ path: '$.name', code: 'invalid_name', message: 'must not start or end with "." nor hold ".." (an empty segment)' }];
  return [];
}

function lintUpstream(spec: LintSpec, options: LintOptions): ContractIssue[] {
  const expected = options.server ?? options.namespace;
  if (spec.upstream.server === expected) return [];
  return [{ path: '$.upstream.server', code: 'upstream_mismatch', message: `must be ${JSON.stringify(expected)}, the server that owns the namespace` }];
}

function lintSchema(schema: Record<string, unknown>, base: string): ContractIssue[] {
  const problem = checkSchema(schema);
  if (problem) {
    const path = problem.path === '$' ? base : base + problem.path.slice(1);
    return [{ ...problem, path }];
  }
  if (schema.type !== 'object') {
    return [{ path: `${base}.type`, code: 'root_not_object', message: 'the root schema must declare type "object"' }];
  }
  return [...booleanPropertyIssues(schema, base), ...invalidDefaultIssues(schema, base)];
}

/**
 * The MCP TypeScript SDK's Tool schema wants an object for each top-level property of
 * inputSchema and outputSchema: one `true` or `false` there makes the client's whole tools/list
 * throw, so an agent would lose every other tool with it. Deeper positions are not checked by it.
 */
function booleanPropertyIssues(schema: Record<string, unknown>, base: string): ContractIssue[] {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  return Object.keys(properties).flatMap((name) => {
    const value = properties[name];
    if (typeof value !== 'boolean') return [];
    const instead = value ? '{}' : '{"not": {}}';
    return [{
      path: appendPath(`${base}.properties`, name), code: 'boolean_property_schema',
      message: `a boolean schema here makes MCP clients built on the official SDK reject the whole tools/list; write ${instead} instead of ${String(value)}`,
    }];
  });
}

/**
 * An OAuth scope token (RFC 6749 §3.3: printable ASCII but space, `"` and `\`). A token's scopes
 * are one space-separated string, so `qa read` could never be held: the tool would be invisible to all.
 */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

function lintScopes(spec: LintSpec): ContractIssue[] {
  return spec.requiredScopes.flatMap((scope, index) => SCOPE_TOKEN.test(scope) ? [] : [{
    path: `$.requiredScopes[${index}]`, code: 'scope_syntax', message: `${JSON.stringify(scope)} is not a scope a token can hold: printable ASCII without spaces, quotes or backslashes`,
  }]);
}

/**
 * Every text a model reads: the name and title (one line), the description, and every string
 * and key of both schemas. The description and title are also checked for the spec's own metadata.
 */
function lintTexts(spec: LintSpec): ContractIssue[] {
  const metadataValues = [...spec.requiredScopes, ...spec.tenants, spec.owner];
  const issues = inspectPromptText(spec.description, '$.description', { metadataValues });
  if (TOOL_NAME_PATTERN.test(spec.name)) issues.push(...inspectPromptText(spec.name, '$.name', { kind: 'line' }));
  if (spec.title !== undefined) issues.push(...inspectPromptText(spec.title, '$.title', { metadataValues, kind: 'line' }));
  issues.push(...inspectPromptTree(spec.inputSchema, '$.inputSchema'));
  if (spec.outputSchema !== undefined) issues.push(...inspectPromptTree(spec.outputSchema, '$.outputSchema'));
  return issues;
}
