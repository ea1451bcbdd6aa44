import { decodeJwt } from 'jose';
import type { Principal } from '@estate/contracts';

/**
 * When the bearer token a principal was resolved from stops being accepted, in milliseconds since
 * the epoch. What outlives a request needs it: the streams a request opens (the edge's, audit's
 * change feed) and what a session may be sent unprompted. Undefined: tokens do not expire
 * (authentication is off).
 */
export type TokenExpiryOf = (principal: Principal, authorization: string | undefined) => number | undefined;

/**
 * Reads `exp` from a JWT the resolver has already verified, so no signature is checked again. The
 * resolver hands back one principal object per token while it trusts that token, so keying on the
 * object decodes each token once and keeps no token in clear. An unreadable `exp` counts as
 * already past: a stream that cannot tell when its rights end does not stay open.
 */
export function jwtExpiry(): TokenExpiryOf {
  const known = new WeakMap<Principal, number>();
  return (principal, authorization) => {
    let until = known.get(principal);
    if (until === undefined) {
      until = readExp(authorization);
      known.set(principal, until);
    }
    return until;
  };
}

/**
 * The expiry of a bearer JWT the guard has already verified, or undefined when the request carries
 * none (authentication is off): for a stream that must end with the rights that opened it.
 */
export function bearerExpiry(authorization: string | undefined): number | undefined {
  return authorization === undefined || !/^Bearer\s+\S/i.test(authorization) ? undefined : readExp(authorization);
}

function readExp(authorization: string | undefined): number {
  try {
    const exp = decodeJwt((authorization ?? '').replace(/^Bearer\s+/i, '')).exp;
    return typeof exp === 'number' ? exp * 1000 : 0;
  } catch {
    return 0;
  }
}

/** setTimeout's longest delay; a later deadline is reached in steps. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * Runs `fire` once at `deadline` (ms since the epoch) with one timer, which never holds the process
 * open. The returned function cancels it.
 */
export function atDeadline(deadline: number, fire: () => void, now: () => number = Date.now): () => void {
  let timer: NodeJS.Timeout;
  const arm = () => {
    const wait = deadline - now();
    if (wait <= 0) return fire();
    timer = setTimeout(arm, Math.min(wait, MAX_DELAY_MS));
    timer.unref();
  };
  arm();
  return () => clearTimeout(timer);
}
