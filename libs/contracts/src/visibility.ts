import { CLASSIFICATION_RANK, DataClassification, ToolSpec } from './tool-spec';

/** Who is asking: resolved from the bearer token before any tool is listed or called. */
export interface Principal {
  id: string;
  tenant?: string;
  scopes: string[];
  clearance: DataClassification;
}

export type VisibilityFacts = Pick<ToolSpec, 'requiredScopes' | 'tenants' | 'dataClassification'>;

/**
 * Whether a principal may see (and so call) a tool: it holds every required scope, its
 * tenant is allowed (an empty list allows every tenant; a principal without a tenant only
 * sees tenant-free tools), and its clearance is at least the tool's classification.
 * Unknown classification values fail closed.
 */
export function isVisible(principal: Principal, spec: VisibilityFacts): boolean {
  return hasScopes(principal, spec) && tenantAllowed(principal, spec) && cleared(principal, spec);
}

function hasScopes(principal: Principal, spec: VisibilityFacts): boolean {
  // Both lists are short; a linear scan beats building a Set for every version on every request.
  for (const scope of spec.requiredScopes) if (!principal.scopes.includes(scope)) return false;
  return true;
}

function tenantAllowed(principal: Principal, spec: VisibilityFacts): boolean {
  if (spec.tenants.length === 0) return true;
  return principal.tenant !== undefined && spec.tenants.includes(principal.tenant);
}

function cleared(principal: Principal, spec: VisibilityFacts): boolean {
  const clearance = CLASSIFICATION_RANK[principal.clearance] ?? -1;
  const required = CLASSIFICATION_RANK[spec.dataClassification] ?? Number.POSITIVE_INFINITY;
  return clearance >= required;
}
