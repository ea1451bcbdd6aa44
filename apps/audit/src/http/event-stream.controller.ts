import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { RequireScope } from '@estate/platform';
import { parseLastEventId } from '../domain/audit-query.parser';
import { ToolChangeFeed } from '../stream/tool-change.feed';
import { AUDIT_READER_REFUSAL, AUDIT_READERS, refusal } from './audit.errors';
import { toHttpError } from './audit.errors.mapper';

@Controller()
export class EventStreamController {
  constructor(@Inject(ToolChangeFeed) private readonly feed: ToolChangeFeed) {}

  /**
   * Server-sent events of tool changes as they are recorded. A client that reconnects with
   * `Last-Event-ID` (or `?lastEventId=`, for clients that cannot set headers) gets what it missed first.
   */
  @Get('v1/events/stream')
  @RequireScope(AUDIT_READERS, AUDIT_READER_REFUSAL)
  async stream(@Req() request: Request, @Res() response: Response): Promise<void> {
    const lastEventId = parseLastEventId(request.header('last-event-id') ?? request.query.lastEventId);
    if (!lastEventId.ok) throw toHttpError(refusal('INVALID_REQUEST', lastEventId));
    // Read the starting point before the headers go out: a database outage must still be able to answer 503.
    const from = lastEventId.value ?? (await this.feed.newestSeq());
    response.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    response.flushHeaders();
    response.write(': connected\n\n');
    const close = await this.feed.open(response, from);
    if (response.destroyed) close();
    else response.on('close', close);
  }
}
