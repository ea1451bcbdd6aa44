import type { CallToolResult, LoggingMessageNotification, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { resolveForPrincipal } from '@estate/catalog';
import { isVisible, type Principal } from '@estate/contracts';
import type { CatalogEntry, CatalogVersion } from '@estate/events';
import type { CallerContext } from './caller.context';
import { levelWanted } from '../sessions/log-level';

/** The `_meta` key of the notice on a deprecated version's results (the estate's namespace, which upstreams cannot write). */
export const DEPRECATION_META = 'io.estate/deprecation';

export interface DeprecationNotice {
  tool: string;
  version: string;
  reason: string;
  /** When the version was deprecated. */
  since?: string;
  /** When it stops working (the registry retires it then). */
  sunset?: string;
  /** The version to move to: the one the deprecation named, else the newest this principal may use. */
  successor?: string;
}

/**
 * The notice for a call that resolved to `version`, or undefined when it is not deprecated. The
 * successor is only ever a version this principal may see: a notice must not reveal versions that
 * are hidden from its reader.
 */
export function deprecationNotice(entry: CatalogEntry, version: CatalogVersion, principal: Principal): DeprecationNotice | undefined {
  if (version.status !== 'deprecated') return undefined;
  const deprecation = version.deprecation;
  const named = deprecation?.replacement;
  const namedVisible = named !== undefined && entry.versions.some((v) => v.version === named && v.status !== 'retired' && isVisible(principal, v.spec));
  const newest = resolveForPrincipal(entry, principal)?.version;
  const successor = namedVisible ? named : newest !== version.version ? newest : undefined;
  return {
    tool: entry.name,
    version: version.version,
    reason: deprecation?.reason ?? 'deprecated',
    ...(deprecation?.deprecatedAt ? { since: deprecation.deprecatedAt } : {}),
    ...(deprecation?.sunsetAt ? { sunset: deprecation.sunsetAt } : {}),
    ...(successor ? { successor } : {}),
  };
}

/** The result with the notice added to its `_meta` (the result's own `_meta` keys are kept). */
export function withDeprecationNotice(result: CallToolResult, notice: DeprecationNotice): CallToolResult {
  const { tool: _tool, version: _version, ...meta } = notice;
  return { ...result, _meta: { ...result._meta, [DEPRECATION_META]: meta } };
}

/** The once-per-session warning: a log message a client shows its user or model. */
export function deprecationWarning(notice: DeprecationNotice): LoggingMessageNotification {
  const sunset = notice.sunset ? `; it stops working on ${notice.sunset}` : '';
  const successor = notice.successor ? `; move to version ${notice.successor}` : '';
  return {
    method: 'notifications/message',
    params: {
      level: 'warning',
      logger: 'estate',
      data: { message: `${notice.tool} version ${notice.version} is deprecated (${notice.reason})${sunset}${successor}.`, ...notice },
    },
  };
}

export type SendNotification = (notification: ServerNotification) => Promise<void>;

/**
 * Marks a deprecated version's result and warns the session the first time it calls that version.
 * The warning honours the level the client set; a client that set a level above `warning` still
 * gets the notice in `_meta`, which no setting turns off.
 */
export async function noticeDeprecation(
  session: CallerContext, entry: CatalogEntry, version: CatalogVersion, principal: Principal, result: CallToolResult, send?: SendNotification,
): Promise<CallToolResult> {
  const notice = deprecationNotice(entry, version, principal);
  if (!notice) return result;
  const key = `${notice.tool}@${notice.version}`;
  if (send && !session.deprecationWarnings.has(key) && levelWanted('warning', session.logLevel)) {
    session.deprecationWarnings.add(key);
    // Sent with the request, so it reaches the client before the result on the same stream. The
    // edge declares the logging capability (primitive-proxy.extension.ts); a warning that cannot be
    // sent loses nothing the notice in `_meta` does not also say.
    await send(deprecationWarning(notice)).catch(() => undefined);
  }
  return withDeprecationNotice(result, notice);
}
