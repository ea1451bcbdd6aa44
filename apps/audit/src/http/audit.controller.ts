import { Controller, Get, Headers, Inject, Param, Query } from '@nestjs/common';
import { RequireScope } from '@estate/platform';
import { isStrictVersion } from '@estate/contracts';
import { encodeCursor, parseAuditQuery, parseIdentifier, unknownParameter } from '../domain/audit-query.parser';
import { toEntryView } from '../domain/audit-entry.view';
import { exportProblem, openExport } from '../export/audit.export';
import { chooseFormat } from '../export/export-format';
import { searchKey } from '../store/storable-entry';
import { AuditRepository } from '../store/audit.repository';
import { TrailCompleteness } from '../trail.completeness';
import { AUDIT_READER_REFUSAL, AUDIT_READERS, refusal } from './audit.errors';
import { toHttpError } from './audit.errors.mapper';

const DEAD_LETTER_PAGE = 100;

/** Every route reads the trail, so every route needs an audit reader. */
@Controller()
@RequireScope(AUDIT_READERS, AUDIT_READER_REFUSAL)
export class AuditController {
  constructor(
    @Inject(AuditRepository) private readonly repo: AuditRepository,
    @Inject(TrailCompleteness) private readonly trail: TrailCompleteness,
  ) {}

  /** A JSON page, or (by `Accept` or `?format=`) the whole filtered range streamed as NDJSON or CSV. */
  @Get('v1/audit')
  async query(@Query() raw: Record<string, unknown>, @Headers('accept') accept?: string) {
    const chosen = chooseFormat(raw.format, accept);
    if (!chosen.ok) throw toHttpError(refusal(chosen.status === 406 ? 'NOT_ACCEPTABLE' : 'INVALID_QUERY', { ok: false, parameter: chosen.status === 406 ? 'Accept' : 'format', message: chosen.message }));
    const parsed = parseAuditQuery(raw);
    if (!parsed.ok) throw toHttpError(refusal('INVALID_QUERY', parsed));
    if (chosen.format !== 'json') {
      const problem = exportProblem(raw);
      if (problem) throw toHttpError(refusal('INVALID_QUERY', problem));
      return openExport(this.repo, parsed.value, chosen.format);
    }
    const page = await this.repo.query(parsed.value);
    const last = page.entries[page.entries.length - 1];
    return { entries: page.entries.map(toEntryView), nextCursor: page.more && last ? encodeCursor(last.seq) : null };
  }

  @Get('v1/audit/verify')
  async verify() {
    const [chain, completeness] = await Promise.all([this.repo.verify(), this.trail.report()]);
    // `ok` speaks for the chain and for completeness; the chain's own fields keep their meaning.
    return { ...chain, ok: chain.ok && completeness.complete, chainOk: chain.ok, ...completeness };
  }

  /** Messages the recorder could not store, newest first, each with its reason. */
  @Get('v1/audit/dead-letters')
  async deadLetters() {
    return { deadLetters: await this.repo.deadLetters(DEAD_LETTER_PAGE) };
  }

  /** Who still calls a tool (or one version of it): what deprecating or retiring it needs to know. */
  @Get('v1/tools/:name/callers')
  async callers(@Param('name') name: string, @Query() raw: Record<string, unknown>) {
    const tool = parseIdentifier(name, 'name');
    if (!tool.ok) throw toHttpError(refusal('INVALID_PARAMETER', tool));
    const unknown = unknownParameter(raw, ['version']);
    if (unknown) throw toHttpError(refusal('INVALID_QUERY', unknown));
    const only = parseIdentifier(raw.version, 'version');
    if (!only.ok) throw toHttpError(refusal('INVALID_QUERY', only));
    if (only.value !== undefined && !isStrictVersion(only.value)) {
      throw toHttpError(refusal('INVALID_QUERY', { ok: false, parameter: 'version', message: '"version" must be a SemVer 2.0.0 version such as 1.2.0' }));
    }
    return { tool: name, version: only.value ?? null, callers: await this.repo.callers(searchKey(name), only.value && searchKey(only.value)) };
  }
}
