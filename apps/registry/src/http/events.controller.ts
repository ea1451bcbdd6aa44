import { Controller, Get, Inject, Query } from '@nestjs/common';
import { httpError, RequireScope } from '@estate/platform';
import { EventLogReader } from '../store/event-log.reader';

const MAX_LIMIT = 1000;

/** The event store, page by page, for rebuilding and verifying projections. Admins only: it holds every fact. */
@Controller()
export class EventsController {
  constructor(@Inject(EventLogReader) private readonly reader: EventLogReader) {}

  @Get('v1/events')
  @RequireScope('estate:admin', 'reading the event store needs estate:admin')
  async events(@Query('after') after?: string, @Query('limit') limit?: string) {
    const from = after ?? '0';
    const size = limit === undefined ? 500 : Number(limit);
    const issues: string[] = [];
    if (!/^\d{1,18}$/.test(from)) issues.push('after must be a store position (a non-negative integer)');
    if (!Number.isInteger(size) || size < 1 || size > MAX_LIMIT) issues.push(`limit must be an integer from 1 to ${MAX_LIMIT}`);
    if (issues.length > 0) throw httpError(400, 'INVALID_REQUEST', 'the event query is malformed', { issues });
    return this.reader.page(from, size);
  }
}
