import { Controller, Get, Inject, Param, Query, UseGuards } from '@nestjs/common';
import type { Principal } from '@estate/contracts';
import { BearerGuard, CurrentPrincipal, httpError } from '@estate/platform';
import { encodeCursor, parseAuditQuery } from '../domain/audit-query.parser';
import { toEntryView } from '../domain/audit-entry.view';
import { AuditRepository } from '../store/audit.repository';
import { requireAuditReader } from './audit-access';

@Controller()
export class AuditController {
  constructor(@Inject(AuditRepository) private readonly repo: AuditRepository) {}

  @Get('v1/audit')
  @UseGuards(BearerGuard)
  async query(@CurrentPrincipal() caller: Principal, @Query() raw: Record<string, unknown>) {
    requireAuditReader(caller);
    const parsed = parseAuditQuery(raw);
    if (!parsed.ok) throw httpError(400, 'INVALID_QUERY', parsed.message, { parameter: parsed.parameter });
    const page = await this.repo.query(parsed.value);
    const last = page.entries[page.entries.length - 1];
    return { entries: page.entries.map(toEntryView), nextCursor: page.more && last ? encodeCursor(last.seq) : null };
  }

  @Get('v1/audit/verify')
  @UseGuards(BearerGuard)
  async verify(@CurrentPrincipal() caller: Principal) {
    requireAuditReader(caller);
    return this.repo.verify();
  }

  /** Who still calls a tool (or one version of it): what deprecating or retiring it needs to know. */
  @Get('v1/tools/:name/callers')
  @UseGuards(BearerGuard)
  async callers(@CurrentPrincipal() caller: Principal, @Param('name') name: string, @Query('version') version?: unknown) {
    requireAuditReader(caller);
    if (version !== undefined && typeof version !== 'string') {
      throw httpError(400, 'INVALID_QUERY', '"version" must be given once, as text', { parameter: 'version' });
    }
    const only = version === '' ? undefined : version;
    return { tool: name, version: only ?? null, callers: await this.repo.callers(name, only) };
  }
}
