import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Principal } from '@estate/contracts';

/**
 * What one request's token grants, and until when (ms since the epoch; undefined when tokens do not
 * expire). A stream the request opens to wait for news (GET, subscriptions/listen) ends then.
 */
export interface RequestRights {
  principal: Principal;
  until?: number;
}

/**
 * Every MCP request is judged by the token it carries, not by the one that opened its session:
 * rights can shrink (a scope revoked, a narrower token) while the session lives. The endpoint
 * resolves each request's token and hands the principal to the SDK as the request's `authInfo`,
 * the SDK's own channel from a transport to the handler of exactly that message.
 */
export function rightsAuthInfo(rights: RequestRights): AuthInfo {
  const { principal, until } = rights;
  // The raw bearer is never kept: nothing downstream needs it, and what is not held cannot leak.
  const info: AuthInfo = { token: '', clientId: principal.id, scopes: principal.scopes, extra: { principal } };
  // The SDK counts expiry in seconds; a stream the request opens ends then (streamable-http.transport.ts).
  if (until !== undefined) info.expiresAt = until / 1000;
  return info;
}

/** The principal a handler acts for: the one its request carried, else the session's (stdio has one principal for its life). */
export function rightsOf(session: { principal: Principal }, extra?: { authInfo?: AuthInfo }): Principal {
  return (extra?.authInfo?.extra?.principal as Principal | undefined) ?? session.principal;
}
