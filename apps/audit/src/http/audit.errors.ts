import type { Parsed } from '../domain/audit-query.parser';

/** Every way the audit service refuses a request. Transports map these codes; nothing here names HTTP. */
export type AuditErrorCode = 'INVALID_QUERY' | 'INVALID_PARAMETER' | 'INVALID_REQUEST' | 'NOT_FOUND' | 'NOT_ACCEPTABLE';

export interface AuditError {
  code: AuditErrorCode;
  message: string;
  details?: unknown;
}

/** A parser's refusal under `code`, naming the parameter at fault. */
export function refusal(code: AuditErrorCode, parsed: Extract<Parsed<unknown>, { ok: false }>): AuditError {
  return { code, message: parsed.message, details: { parameter: parsed.parameter } };
}

/** The trail names every caller of every tool: reading any of it is an audit or admin privilege. */
export const AUDIT_READERS = ['estate:audit', 'estate:admin'];
export const AUDIT_READER_REFUSAL = 'reading the audit trail needs scope estate:audit or estate:admin';
