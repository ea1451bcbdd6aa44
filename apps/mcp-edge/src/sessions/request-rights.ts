import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Principal } from '@estate/contracts';

/**
 * Every MCP request is judged by the token it carries, not by the one that opened its session:
 * rights can shrink (a scope revoked, a narrower token) while the session lives. The endpoint
 * resolves each request's token and hands the principal to the SDK as the request's `authInfo`,
 * the SDK's own channel from a transport to the handler of exactly that message.
 */
export function rightsAuthInfo(principal: Principal): AuthInfo {
  // The raw bearer is never kept: nothing downstream needs it, and what is not held cannot leak.
  return { token: '', clientId: principal.id, scopes: principal.scopes, extra: { principal } };
}

/** The principal a handler acts for: the one its request carried, else the session's (stdio has one principal for its life). */
export function rightsOf(session: { principal: Principal }, extra?: { authInfo?: AuthInfo }): Principal {
  return (extra?.authInfo?.extra?.principal as Principal | undefined) ?? session.principal;
}
