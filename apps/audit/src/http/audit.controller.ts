import { Controller, Get, Inject, Param, Query, UseGuards } from '@nestjs/common';
import type { Principal } from '@estate/contracts';
import { BearerGuard, CurrentPrincipal, httpError } from '@estate/platform';
import { encodeCursor, parseAuditQuery, parseIdentifier } from '../domain/audit-query.parser';
import { toEntryView } from '../domain/audit-entry.view';
import { searchKey } from '../store/storable-entry';
import { AuditRepository } from '../store/audit.repository';
import { TrailCompleteness } from '../trail.completeness';
import { requireAuditReader } from './audit-access';

const DEAD_LETTER_PAGE = 100;

@Controller()
export class AuditController {
  constructor(
    @Inject(AuditRepository) private readonly repo: AuditRepository,
    @Inject(TrailCompleteness) private readonly trail: TrailCompleteness,
  ) {}

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
    const [chain, completeness] = await Promise.all([this.repo.verify(), this.trail.report()]);
    // `ok` speaks for the chain and for completeness; the chain's own fields keep their meaning.
    return { ...chain, ok: chain.ok && completeness.complete, chainOk: chain.ok, ...completeness };
  }

  /** Messages the recorder could not store, newest first, each with its reason. */
  @Get('v1/audit/dead-letters')
  @UseGuards(BearerGuard)
  async deadLetters(@CurrentPrincipal() caller: Principal) {
    requireAuditReader(caller);
    return { deadLetters: await this.repo.deadLetters(DEAD_LETTER_PAGE) };
  }

  /** Who still calls a tool (or one version of it): what deprecating or retiring it needs to know. */
  @Get('v1/tools/:name/callers')
  @UseGuards(BearerGuard)
  async callers(@CurrentPrincipal() caller: Principal, @Param('name') name: string, @Query('version') version?: unknown) {
    requireAuditReader(caller);
    const tool = parseIdentifier(name, 'name');
    if (!tool.ok) throw httpError(400, 'INVALID_PARAMETER', tool.message, { parameter: tool.parameter });
    const only = parseIdentifier(version, 'version');
    if (!only.ok) throw httpError(400, 'INVALID_QUERY', only.message, { parameter: only.parameter });
    return { tool: name, version: only.value ?? null, callers: await this.repo.callers(searchKey(name), only.value && searchKey(only.value)) };
  }
}
