import type { Principal } from '@estate/contracts';
import { httpError } from '@estate/platform';

const READER_SCOPES = ['estate:audit', 'estate:admin'];

/** The trail names every caller of every tool: reading it is an audit or admin privilege. */
export function requireAuditReader(principal: Principal): void {
  if (!principal.scopes.some((scope) => READER_SCOPES.includes(scope))) {
    throw httpError(403, 'FORBIDDEN', 'reading the audit trail needs scope estate:audit or estate:admin');
  }
}
