import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Principal } from '@estate/contracts';
import { CURRENT_REGISTRY_EVENT_VERSIONS, FEED_ONLY_EVENT_TYPES, parseFeedFilter, type FeedFilter } from '@estate/events';
import { atDeadline, Authenticated, bearerExpiry, CLOCK, CurrentPrincipal, type Clock } from '@estate/platform';
import { unknownParameter, type Parsed } from '../domain/audit-query.parser';
import { feedViewerOf } from '../domain/feed.visibility';
import { FeedCursorSeal } from '../stream/feed-cursor.seal';
import { feedIdsFor, isFeedId, type FeedIds } from '../stream/feed.ids';
import { feedStartAfter, type FeedStart } from '../stream/feed.start';
import { ToolChangeFeed } from '../stream/tool-change.feed';
import { refusal } from './audit.errors';
import { toHttpError } from './audit.errors.mapper';

const FEED_TYPES = [...Object.keys(CURRENT_REGISTRY_EVENT_VERSIONS), ...FEED_ONLY_EVENT_TYPES];
const FEED_PARAMETERS = ['tools', 'types', 'since', 'lastEventId'];

/** Last-Event-ID as the client sent it: the header, or `?lastEventId=` for clients that cannot set one. */
function resumeId(request: Request): { id: unknown; parameter: string } | undefined {
  const header = request.header('last-event-id');
  if (header !== undefined && header !== '') return { id: header, parameter: 'Last-Event-ID' };
  const query = request.query.lastEventId;
  return query === undefined || query === '' ? undefined : { id: query, parameter: 'lastEventId' };
}

/** Where the client asked to start: Last-Event-ID wins over `since`, a position or a time; neither is the next change. */
function requestedStart(resume: ReturnType<typeof resumeId>, since: Parsed<number> | undefined, filter: FeedFilter, ids: FeedIds, sealed: boolean): Parsed<FeedStart> {
  if (since !== undefined && !since.ok) return since;
  if (resume !== undefined) {
    const position = ids.positionOf(resume.id, resume.parameter);
    return position.ok ? { ok: true, value: { kind: 'position', position: position.value, parameter: resume.parameter, sealed } } : position;
  }
  if (since !== undefined) return { ok: true, value: { kind: 'position', position: since.value, parameter: 'since', sealed } };
  if (filter.sinceTime !== undefined) return { ok: true, value: { kind: 'time', time: filter.sinceTime, parameter: 'since' } };
  return { ok: true, value: { kind: 'next' } };
}

@Controller()
export class EventStreamController {
  constructor(
    @Inject(ToolChangeFeed) private readonly feed: ToolChangeFeed,
    @Inject(FeedCursorSeal) private readonly seal: FeedCursorSeal,
    @Inject(CLOCK) private readonly clock: Clock,
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
    const { tools, types, since } = request.query;
    const sinceId = isFeedId(since) ? ids.positionOf(since, 'since') : undefined;
    const parsed = parseFeedFilter({ tools, types, since: sinceId ? undefined : since }, FEED_TYPES);
    if (!parsed.ok) throw toHttpError({ code: 'INVALID_PARAMETER', message: `${parsed.path}: ${parsed.message}`, details: { parameter: parsed.path } });
    const { filter } = parsed;
    const start = requestedStart(resumeId(request), sinceId, filter, ids, viewer.kind !== 'all');
    if (!start.ok) throw toHttpError(refusal('INVALID_PARAMETER', start));
    // Read before the headers go out, so a database outage can still answer 503.
    const after = await feedStartAfter(start.value, this.feed, this.clock());
    if (!after.ok) throw toHttpError(refusal('INVALID_PARAMETER', after));
    response.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    response.flushHeaders();
    response.write(': connected\n\n');
    const close = this.feed.open(response, { after: after.value, filter, viewer, ids });
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
