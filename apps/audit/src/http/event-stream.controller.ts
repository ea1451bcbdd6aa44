import { Controller, Get, Inject, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Principal } from '@estate/contracts';
import { BearerGuard, CurrentPrincipal, httpError } from '@estate/platform';
import { parseLastEventId } from '../domain/audit-query.parser';
import { ToolChangeFeed } from '../stream/tool-change.feed';
import { requireAuditReader } from './audit-access';

@Controller()
export class EventStreamController {
  constructor(@Inject(ToolChangeFeed) private readonly feed: ToolChangeFeed) {}

  /**
   * Server-sent events of tool changes as they are recorded. A client that reconnects with
   * `Last-Event-ID` (or `?lastEventId=`, for clients that cannot set headers) gets what it missed first.
   */
  @Get('v1/events/stream')
  @UseGuards(BearerGuard)
  async stream(@CurrentPrincipal() caller: Principal, @Req() request: Request, @Res() response: Response): Promise<void> {
    requireAuditReader(caller);
    const lastEventId = parseLastEventId(request.header('last-event-id') ?? request.query.lastEventId);
    if (!lastEventId.ok) throw httpError(400, 'INVALID_REQUEST', lastEventId.message, { parameter: lastEventId.parameter });
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
