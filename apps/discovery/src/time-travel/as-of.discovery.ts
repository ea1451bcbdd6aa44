import type { Principal } from '@estate/contracts';
import type { Logger } from '@estate/platform';
import type { RegistryEventSource } from '../catalog.rebuilder';
import type { DiscoveryError } from '../http/discovery.errors';
import type { AsOfRequest } from './as-of.request';
import { toolsAsOf, type ToolAnswers, type ToolAsOf } from './as-of.view';
import { LogTimeline } from './log-timeline';

export interface AsOfAnswer {
  principal: string;
  at: string;
  /**
   * How many events of the log were folded (those that had happened at `at`) and when the last one
   * happened: for an estate:admin only, who may read the event store itself. They count every
   * change, hidden ones included, so anyone else could count and time what it may not see.
   */
  events?: number;
  lastEventAt?: string | null;
  tools: ToolAsOf[];
}

const isAdmin = (p: Principal): boolean => p.scopes.includes('estate:admin');

/**
 * `at=` discovery: the log folded up to an instant, then the visibility rule of today. Who may be
 * asked about follows POST /v1/discover: an admin for anyone, anyone else only for itself and
 * always with its own token's rights.
 */
export class AsOfDiscovery {
  private readonly timeline?: LogTimeline;
  private readonly answers: ToolAnswers = new WeakMap();

  constructor(source: RegistryEventSource | undefined, private readonly logger: Logger) {
    if (source) this.timeline = new LogTimeline(source, logger);
  }

  async discover(caller: Principal, request: AsOfRequest): Promise<{ ok: true; value: AsOfAnswer } | { ok: false; error: DiscoveryError }> {
    const asked = request.principal;
    if (asked !== undefined && asked.id !== caller.id && !isAdmin(caller)) {
      return { ok: false, error: { code: 'FORBIDDEN', message: 'discovering for another principal needs estate:admin' } };
    }
    if (!this.timeline) {
      return { ok: false, error: { code: 'REBUILD_UNAVAILABLE', message: 'discovery at an instant folds the registry event store, and no registry is configured (ESTATE_REGISTRY_URL)' } };
    }
    const principal = asked !== undefined && isAdmin(caller) ? asked : caller;
    let folded;
    try {
      folded = await this.timeline.foldedAt(request.at);
    } catch (error) {
      // The registry's answer may name its URL or its own errors: logged here, summarized to the caller.
      this.logger.error({ err: error }, 'discovery at an instant could not read the registry event store');
      return { ok: false, error: { code: 'REBUILD_UNAVAILABLE', message: 'the registry event store cannot be read right now; try again' } };
    }
    return {
      ok: true,
      value: {
        principal: principal.id, at: new Date(request.at).toISOString(),
        ...(isAdmin(caller) ? { events: folded.events, lastEventAt: folded.lastEventAt ?? null } : {}),
        tools: toolsAsOf(folded.projection.tools.values(), principal, this.answers, new Date(request.at).getTime()),
      },
    };
  }
}
