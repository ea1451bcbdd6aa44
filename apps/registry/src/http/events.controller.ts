import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import type { Principal } from '@estate/contracts';
import { BearerGuard, CurrentPrincipal, httpError } from '@estate/platform';
import { EventLogReader } from '../store/event-log.reader';

const MAX_LIMIT = 1000;

/** The event store, page by page, for rebuilding and verifying projections. Admins only: it holds every fact. */
@Controller()
@UseGuards(BearerGuard)
export class EventsController {
  constructor(@Inject(EventLogReader) private readonly reader: EventLogReader) {}

  @Get('v1/events')
  async events(@CurrentPrincipal() caller: Principal, @Query('after') after?: string, @Query('limit') limit?: string) {
    if (!caller.scopes.includes('estate:admin')) throw httpError(403, 'FORBIDDEN', 'reading the event store needs estate:admin');
    const from = after ?? '0';
    const size = limit === undefined ? 500 : Number(limit);
    const issues: string[] = [];
    if (!/^\d{1,18}$/.test(from)) issues.push('after must be a store position (a non-negative integer)');
    if (!Number.isInteger(size) || size < 1 || size > MAX_LIMIT) issues.push(`limit must be an integer from 1 to ${MAX_LIMIT}`);
    if (issues.length > 0) throw httpError(400, 'INVALID_REQUEST', 'the event query is malformed', { issues });
    return this.reader.page(from, size);
  }
}
