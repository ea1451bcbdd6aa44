import { DATA_CLASSIFICATIONS, INSTANT_FORM, parseInstant, type DataClassification, type Principal } from '@estate/contracts';
import type { RequestIssue } from '../http/discover.requests';

/** `GET /v1/discover?at=…`: the instant, and (for an admin) the principal to answer for. */
export interface AsOfRequest {
  at: number;
  /** Absent: the caller asks for itself, with its own token's rights. */
  principal?: Principal;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; issues: RequestIssue[] };

const KNOWN = ['at', 'principal', 'scope', 'tenant', 'clearance'];

/**
 * The query of an `at=` discovery. The principal's rights are described like a token's claims
 * (`scope` space-separated, `tenant`, `clearance`); left out they are the least: no scope, no
 * tenant, `public`. `now` bounds `at`: the log knows nothing of the future.
 */
export function parseAsOfQuery(query: Record<string, unknown>, now: Date): Parsed<AsOfRequest> {
  const issues: RequestIssue[] = Object.keys(query).filter((k) => !KNOWN.includes(k)).map((k) => ({ path: k, message: 'is not a known query parameter' }));
  const text = (name: string): string | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    if (typeof value === 'string' && value.length > 0 && value.length <= 256) return value;
    issues.push({ path: name, message: 'must be given once, as non-empty text of at most 256 characters' });
    return undefined;
  };
  const [rawAt, id, scope, tenant, clearance] = ['at', 'principal', 'scope', 'tenant', 'clearance'].map(text);
  const instant = rawAt === undefined ? undefined : parseInstant(rawAt);
  const at = instant?.ok ? instant.time : undefined;
  if (rawAt === undefined && query.at === undefined) issues.push({ path: 'at', message: 'is required: an ISO 8601 date-time such as 2026-11-30T12:00:00Z' });
  else if (rawAt !== undefined && at === undefined) issues.push({ path: 'at', message: `must be ${INSTANT_FORM}, naming a real day from year 1 to 9999` });
  else if (at !== undefined && at > now.getTime()) issues.push({ path: 'at', message: `must not be later than now (${now.toISOString()}): the log holds no facts about the future` });
  if (clearance !== undefined && !DATA_CLASSIFICATIONS.includes(clearance as DataClassification)) {
    issues.push({ path: 'clearance', message: `must be one of ${DATA_CLASSIFICATIONS.join(', ')}` });
  }
  const describesRights = scope !== undefined || tenant !== undefined || clearance !== undefined;
  if (describesRights && id === undefined) issues.push({ path: 'principal', message: 'is required when scope, tenant or clearance describe one' });
  if (issues.length > 0 || at === undefined) return { ok: false, issues: issues.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) };
  if (id === undefined) return { ok: true, value: { at } };
  const principal: Principal = { id, scopes: (scope ?? '').split(' ').filter(Boolean), clearance: (clearance ?? 'public') as DataClassification };
  if (tenant !== undefined) principal.tenant = tenant;
  return { ok: true, value: { at, principal } };
}
