import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Principal } from '@estate/contracts';
import { CURRENT_REGISTRY_EVENT_VERSIONS, FEED_ONLY_EVENT_TYPES, parseFeedFilter } from '@estate/events';
import { atDeadline, Authenticated, bearerExpiry, CurrentPrincipal } from '@estate/platform';
import { unknownParameter } from '../domain/audit-query.parser';
import { feedViewerOf } from '../domain/feed.visibility';
import { FeedCursorSeal } from '../stream/feed-cursor.seal';
import { feedIdsFor, isFeedId } from '../stream/feed.ids';
import { ToolChangeFeed } from '../stream/tool-change.feed';
import { refusal } from './audit.errors';
import { toHttpError } from './audit.errors.mapper';

const FEED_TYPES = [...Object.keys(CURRENT_REGISTRY_EVENT_VERSIONS), ...FEED_ONLY_EVENT_TYPES];
const FEED_PARAMETERS = ['tools', 'types', 'since', 'lastEventId'];

@Controller()
export class EventStreamController {
  constructor(
    @Inject(ToolChangeFeed) private readonly feed: ToolChangeFeed,
    @Inject(FeedCursorSeal) private readonly seal: FeedCursorSeal,
  ) {}

  /**
   * Server-sent CloudEvents of tool changes as they are recorded, filtered by `tools`, `types` and
   * `since`. Any token may subscribe: an agent gets the tools discovery would show it, an admin or
   * auditor everything. Without admin, publish or audit scopes, each event is cut to what the
   * registry shows that caller of the change: no actor, governance fields or publish diff. A client
   * that reconnects with `Last-Event-ID` (or `?lastEventId=`, for clients that cannot set headers)
   * gets what it missed first; that id wins over `since`. Only audit readers get plain positions as
   * ids; anyone else gets sealed cursors (feed.ids.ts). The stream ends when the token that opened it expires.
   */
  @Get('v1/events/stream')
  @Authenticated()
  async stream(@CurrentPrincipal() principal: Principal, @Req() request: Request, @Res() response: Response): Promise<void> {
    const unknown = unknownParameter(request.query, FEED_PARAMETERS);
    if (unknown) throw toHttpError(refusal('INVALID_PARAMETER', unknown));
    const viewer = feedViewerOf(principal);
    const ids = feedIdsFor(this.seal, principal, viewer);
    const lastEventId = request.header('last-event-id') ?? request.query.lastEventId;
    const resumed = lastEventId === undefined || lastEventId === '' ? undefined : ids.positionOf(lastEventId, 'Last-Event-ID');
    if (resumed && !resumed.ok) throw toHttpError(refusal('INVALID_REQUEST', resumed));
    const { tools, types, since } = request.query;
    const sinceId = isFeedId(since) ? ids.positionOf(since, 'since') : undefined;
    if (sinceId && !sinceId.ok) throw toHttpError(refusal('INVALID_PARAMETER', sinceId));
    const parsed = parseFeedFilter({ tools, types, since: sinceId ? undefined : since }, FEED_TYPES);
    if (!parsed.ok) throw toHttpError({ code: 'INVALID_PARAMETER', message: `${parsed.path}: ${parsed.message}`, details: { parameter: parsed.path } });
    const { filter } = parsed;
    // `since` as a time reads from the start and skips older entries (see the stream); the newest seq is read
    // before the headers go out, so a database outage can still answer 503.
    const after = resumed?.value ?? sinceId?.value ?? (filter.sinceTime !== undefined ? 0 : await this.feed.newestSeq());
    response.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    response.flushHeaders();
    response.write(': connected\n\n');
    const close = this.feed.open(response, { after, filter, viewer, ids });
    // The stream ends with the rights that opened it: the client reconnects with a fresh token and its Last-Event-ID.
    const until = bearerExpiry(request.headers.authorization);
    const cancel = until === undefined ? () => undefined : atDeadline(until, () => response.end());
    const ended = () => {
      cancel();
      close();
    };
    if (response.destroyed) ended();
    else response.on('close', ended);
  }
}
