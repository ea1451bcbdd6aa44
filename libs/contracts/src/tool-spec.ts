export type { JsonSchema } from './schema-dialect.policy';

/** How much a call changes the world; it alone decides whether a failed call may be retried. */
export type SideEffect = 'read' | 'idempotent_write' | 'write' | 'destructive';
export type DataClassification = 'public' | 'internal' | 'confidential' | 'restricted';

export const SIDE_EFFECTS: readonly SideEffect[] = Object.freeze([
  'read',
  'idempotent_write',
  'write',
  'destructive',
]);
export const DATA_CLASSIFICATIONS: readonly DataClassification[] = Object.freeze([
  'public',
  'internal',
  'confidential',
  'restricted',
]);

/**
 * A tool's full contract as the registry stores it. Only name, title, description and the
 * schemas reach MCP clients; the rest is control-plane metadata (see `toMcpTool`).
 */
export interface ToolSpec {
  name: string;
  version: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  sideEffect: SideEffect;
  requiredScopes: string[];
  dataClassification: DataClassification;
  tenants: string[];
  owner: string;
  upstream: { server: string; tool: string };
}

/** The one place retry policy is decided: a property of the tool, not of each caller. */
export const RETRYABLE_BY_SIDE_EFFECT: Readonly<Record<SideEffect, boolean>> = Object.freeze({
  read: true,
  idempotent_write: true,
  write: false,
  destructive: false,
});

export function isRetryable(sideEffect: SideEffect): boolean {
  return RETRYABLE_BY_SIDE_EFFECT[sideEffect] === true;
}

/** public < internal < confidential < restricted. */
export const CLASSIFICATION_RANK: Readonly<Record<DataClassification, number>> = Object.freeze({
  public: 0,
  internal: 1,
  confidential: 2,
  restricted: 3,
});

export function classificationRank(classification: DataClassification): number {
  return CLASSIFICATION_RANK[classification];
}

/** MCP `ToolAnnotations` (2025-03-26 and later): hints only, never a security boundary. */
export interface McpToolAnnotations {
  title?: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** A tool as `tools/list` shows it: MCP fields and nothing from the control plane. */
export interface McpTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: McpToolAnnotations;
}

type BehaviourHints = Omit<McpToolAnnotations, 'title' | 'openWorldHint'>;

const HINTS_BY_SIDE_EFFECT: Readonly<Record<SideEffect, BehaviourHints>> = Object.freeze({
  read: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  idempotent_write: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  write: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  destructive: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
});

/**
 * Projects a spec onto the MCP `Tool` shape. Scopes, tenants, classification, owner,
 * upstream and version stay behind: they are for the control plane, and showing them to a
 * model only spends context and maps the controls for an attacker. `openWorldHint` is
 * false because estate tools reach a registered system of record, not an open domain.
 */
export function toMcpTool(spec: ToolSpec): McpTool {
  const annotations: McpToolAnnotations = {
    ...(spec.title !== undefined ? { title: spec.title } : {}),
    ...HINTS_BY_SIDE_EFFECT[spec.sideEffect],
    openWorldHint: false,
  };
  return {
    name: spec.name,
    ...(spec.title !== undefined ? { title: spec.title } : {}),
    description: spec.description,
    inputSchema: spec.inputSchema,
    ...(spec.outputSchema !== undefined ? { outputSchema: spec.outputSchema } : {}),
    annotations,
  };
}
