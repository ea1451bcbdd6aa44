import type { ContractIssue } from './contract.types';
import { appendPath, isRecord } from './json-path.util';
import { inspectPromptText } from './prompt-text.rules';
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
  if (namespace !== '' && (!spec.name.startsWith(prefix) || spec.name.length === prefix.length)) {
    return [{ path: '$.name', code: 'namespace_mismatch', message: `must start with "${prefix}" followed by the tool's own name` }];
  }
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
  return [];
}

function lintTexts(spec: LintSpec): ContractIssue[] {
  const context = { metadataValues: [...spec.requiredScopes, ...spec.tenants, spec.owner] };
  const issues = inspectPromptText(spec.description, '$.description', context);
  if (spec.title !== undefined) issues.push(...inspectPromptText(spec.title, '$.title', context));
  issues.push(...lintSchemaTexts(spec.inputSchema, '$.inputSchema'));
  if (spec.outputSchema !== undefined) issues.push(...lintSchemaTexts(spec.outputSchema, '$.outputSchema'));
  return issues;
}

/** Schema titles and descriptions reach the model too; hidden instructions are refused there. */
function lintSchemaTexts(node: unknown, path: string): ContractIssue[] {
  if (Array.isArray(node)) return node.flatMap((item, index) => lintSchemaTexts(item, appendPath(path, index)));
  if (!isRecord(node)) return [];
  return Object.keys(node).flatMap((key) => {
    const value = node[key];
    const childPath = appendPath(path, key);
    if ((key === 'description' || key === 'title') && typeof value === 'string') {
      return inspectPromptText(value, childPath);
    }
    return lintSchemaTexts(value, childPath);
  });
}
