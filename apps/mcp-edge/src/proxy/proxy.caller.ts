import type { Principal } from '@estate/contracts';
import type { HandlerExtra, InFlightCall, ProxySessionState } from './proxy-session.state';
import { ResourceAttribution } from './resource.attribution';

/**
 * Whom a proxied resources/prompts/completion request is made for, whatever the protocol era.
 * The proxies read only this: the principal (what it may reach), the URI map its lists fill, how
 * to cancel, and what an upstream's own request during it is attributed to.
 */
export interface ProxyCaller {
  readonly principal: Principal;
  readonly attribution: ResourceAttribution;
  readonly signal?: AbortSignal;
  /** The in-flight record for a request to `server` made on this caller's behalf. */
  inFlight(server: string): InFlightCall;
}

/** A session's request: its lasting URI map, and the way back to its client for sampling and elicitation. */
export function sessionCaller(state: ProxySessionState, extra?: HandlerExtra): ProxyCaller {
  return {
    principal: state.session.principal,
    attribution: state,
    ...(extra ? { signal: extra.signal } : {}),
    inFlight: (server) => ({
      state, principal: state.session.principal, sessionId: state.session.id, server,
      ...(extra ? { sendRequest: extra.sendRequest, sendNotification: extra.sendNotification } : {}),
    }),
  };
}

/**
 * A 2026-07-28 request: nothing outlives it, so its URI map starts empty; it has no stream to
 * ask on, so an upstream request during it finds the caller and is refused.
 */
export function requestCaller(principal: Principal, signal?: AbortSignal): ProxyCaller {
  return { principal, attribution: new ResourceAttribution(), ...(signal ? { signal } : {}), inFlight: (server) => ({ principal, server }) };
}
