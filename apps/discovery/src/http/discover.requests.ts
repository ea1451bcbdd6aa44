import { isJsonObject } from '@estate/protocol';
import { DATA_CLASSIFICATIONS, comparePaths, formatPath, isValidConstraint, type DataClassification, type Principal } from '@estate/contracts';
import type { Pins } from '@estate/catalog';

export interface RequestIssue {
  path: string;
  message: string;
}

export interface DiscoverRequest {
  /** Absent: the caller asks for itself. */
  principal?: Principal;
  pins: Pins;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; issues: RequestIssue[] };

const PRINCIPAL_FIELDS = ['id', 'tenant', 'scopes', 'clearance'];

/**
 * `POST /v1/discover` body: `{principal?, pins?}`. Every problem is reported with its path, so a
 * typo in a pin or a clearance cannot silently widen or narrow what the answer shows.
 */
export function parseDiscoverRequest(body: unknown): Parsed<DiscoverRequest> {
  if (body === undefined || body === null) return { ok: true, value: { pins: {} } };
  if (!isJsonObject(body)) return { ok: false, issues: [{ path: '$', message: 'body must be a JSON object' }] };
  const issues = unknownFields(body, ['principal', 'pins'], '$');
  if (body.principal !== undefined) issues.push(...principalIssues(body.principal));
  if (body.pins !== undefined) issues.push(...pinIssues(body.pins));
  if (issues.length > 0) return { ok: false, issues: issues.sort((a, b) => comparePaths(a.path, b.path)) };
  const value: DiscoverRequest = { pins: (body.pins as Pins | undefined) ?? {} };
  if (body.principal !== undefined) value.principal = toPrincipal(body.principal as Record<string, unknown>);
  return { ok: true, value };
}

function principalIssues(principal: unknown): RequestIssue[] {
  if (!isJsonObject(principal)) return [{ path: '$.principal', message: 'principal must be an object {id, tenant?, scopes, clearance}' }];
  const issues = unknownFields(principal, PRINCIPAL_FIELDS, '$.principal');
  const { id, tenant, scopes, clearance } = principal;
  if (typeof id !== 'string' || id.length === 0) issues.push({ path: '$.principal.id', message: 'id must be a non-empty string' });
  if (tenant !== undefined && (typeof tenant !== 'string' || tenant.length === 0)) {
    issues.push({ path: '$.principal.tenant', message: 'tenant must be a non-empty string when present' });
  }
  if (!Array.isArray(scopes)) issues.push({ path: '$.principal.scopes', message: 'scopes must be an array of strings' });
  else {
    scopes.forEach((scope, index) => {
      if (typeof scope !== 'string' || scope.length === 0) issues.push({ path: formatPath(['principal', 'scopes', index]), message: 'a scope must be a non-empty string' });
    });
  }
  if (!DATA_CLASSIFICATIONS.includes(clearance as DataClassification)) {
    issues.push({ path: '$.principal.clearance', message: `clearance must be one of ${DATA_CLASSIFICATIONS.join(', ')}` });
  }
  return issues;
}

function pinIssues(pins: unknown): RequestIssue[] {
  if (!isJsonObject(pins)) return [{ path: '$.pins', message: 'pins must be an object mapping tool name to a version or range' }];
  return Object.keys(pins)
    .filter((name) => !isValidConstraint(pins[name]))
    .map((name) => ({ path: formatPath(['pins', name]), message: 'must be a version or range such as "1.2.0" or "^1.2.0"' }));
}

function toPrincipal(raw: Record<string, unknown>): Principal {
  const principal: Principal = { id: raw.id as string, scopes: [...(raw.scopes as string[])], clearance: raw.clearance as DataClassification };
  if (raw.tenant !== undefined) principal.tenant = raw.tenant as string;
  return principal;
}

function unknownFields(body: Record<string, unknown>, known: readonly string[], base: string): RequestIssue[] {
  return Object.keys(body)
    .filter((key) => !known.includes(key))
    .map((key) => ({ path: `${base}${formatPath([key]).slice(1)}`, message: 'is not a known field' }));
}
