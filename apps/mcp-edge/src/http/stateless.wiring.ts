import { randomBytes } from 'node:crypto';
import type { Logger } from '@estate/platform';
import type { CatalogReplica } from '../catalog/catalog.replica';
import type { EdgeConfig } from '../config';
import { ListChangeListeners } from '../mcp/list-change.listeners';
import { RequestStateSealer } from '../mcp/request-state.sealer';
import type { SpentStates } from '../mcp/spent-states.port';
import { StatelessDispatcher } from '../mcp/stateless.dispatcher';
import type { ToolCallPipeline } from '../mcp/tool-call.pipeline';
import type { PrimitiveProxyExtension } from '../proxy/primitive-proxy.extension';
import { SERVER_INFO, type SessionManager } from '../sessions/session.manager';
import type { StatelessEndpointDeps } from './stateless.endpoint';

/** How long a 2026-07-28 client may reuse a tools/list or server/discover answer; list changes are also pushed on subscriptions/listen. */
export const LIST_TTL_MS = 60_000;

/**
 * The parts that serve the 2026-07-28 revision, built from the edge's replica and pipeline. A
 * sealed requestState lives as long as a confirmation token (ESTATE_CONFIRM_TTL_SECONDS).
 */
export function statelessEndpointDeps(config: EdgeConfig, replica: CatalogReplica, pipeline: ToolCallPipeline, sessions: SessionManager, logger: Logger, proxy?: Pick<PrimitiveProxyExtension, 'aroundStatelessCall' | 'stateless'>, spent?: SpentStates): StatelessEndpointDeps {
  const key = config.requestStateKey ?? randomBytes(32).toString('base64url');
  if (config.requestStateKey === undefined) logger.info('ESTATE_REQUEST_STATE_KEY is not set: this edge seals requestState with a key of its own, which other copies will not accept');
  const sealer = new RequestStateSealer(key, config.policy.confirmationTtlMs, Date.now, spent);
  const log = logger.child({ component: 'stateless' });
  const listeners = new ListChangeListeners(replica, log);
  // Listen streams end with the sessions, before the HTTP server closes.
  sessions.onClosingAll(() => listeners.closeAll(SERVER_INFO));
  const dispatcher = new StatelessDispatcher({
    replica, pipeline, sealer, serverInfo: SERVER_INFO, listTtlMs: LIST_TTL_MS, inputParkTtlMs: config.inputParkTtlMs, logger: log,
    ...(proxy ? { aroundCall: (principal, tool, run, asker) => proxy.aroundStatelessCall(principal, tool, run, asker), primitives: proxy.stateless.methods } : {}),
  });
  // Calls parked for an agent's answers end too: their upstream questions are withdrawn.
  sessions.onClosingAll(() => dispatcher.close());
  return { dispatcher, listeners, serverInfo: SERVER_INFO, ...(proxy ? { primitives: proxy.stateless.listen } : {}) };
}
