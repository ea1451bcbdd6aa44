import { createSecretKey, hash, type KeyObject } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { hasUnstorableText, type DataClassification, type Principal } from '@estate/contracts';
import { keepWithin } from '@estate/protocol';

export type AuthConfig =
  | ({ mode: 'jwt'; secret?: string; jwksUrl?: string; issuer?: string; audience?: string } & Partial<TokenTimeLimits>)
  | { mode: 'none'; principal: Principal };

/** How long a token may live and how far its issuer's clock may run ahead of ours. */
export interface TokenTimeLimits {
  /** Longest accepted `exp - iat` (or `exp - now` without `iat`), in seconds. */
  maxLifetimeSeconds: number;
  /** How far in the future an `iat` may lie, in seconds. */
  clockSkewSeconds: number;
}

export const DEFAULT_TOKEN_TIME_LIMITS: TokenTimeLimits = { maxLifetimeSeconds: 24 * 3600, clockSkewSeconds: 60 };

export type AuthResult = { ok: true; principal: Principal } | { ok: false; reason: 'missing' | 'invalid' };

export interface ResolverOptions {
  /** Milliseconds since the epoch; tests move it to cross a token's expiry. */
  now?: () => number;
  /** Distinct tokens remembered; the least recently used is forgotten first. */
  cacheLimit?: number;
}

const CLEARANCES: readonly DataClassification[] = ['public', 'internal', 'confidential', 'restricted'];
/** A verified token is trusted again until its exp, but never longer than this (key rotation). */
export const VERIFIED_TTL_MS = 5 * 60_000;
/** A refusal is remembered only briefly, so a token that becomes valid (nbf, JWKS refresh) soon works. */
export const REFUSED_TTL_MS = 2_000;

interface Remembered {
  result: AuthResult;
  until: number;
}

/**
 * Turns `Authorization: Bearer <JWT>` into a principal. No token, or a bad one (including one
 * without `exp`, too long-lived, or issued in the future: see withinTimeLimits), is a refusal with
 * no detail. Every request of a session carries the same token, so verified tokens are remembered
 * (by hash, never in clear) until they expire instead of re-verifying the signature each time.
 */
export class PrincipalResolver {
  private readonly key?: KeyObject | JWTVerifyGetKey;
  private readonly remembered = new Map<string, Remembered>();
  private readonly now: () => number;
  private readonly cacheLimit: number;
  private readonly limits: TokenTimeLimits;

  constructor(private readonly config: AuthConfig, options: ResolverOptions = {}) {
    this.now = options.now ?? Date.now;
    this.cacheLimit = options.cacheLimit ?? 10_000;
    this.limits = {
      maxLifetimeSeconds: (config.mode === 'jwt' ? config.maxLifetimeSeconds : undefined) ?? DEFAULT_TOKEN_TIME_LIMITS.maxLifetimeSeconds,
      clockSkewSeconds: (config.mode === 'jwt' ? config.clockSkewSeconds : undefined) ?? DEFAULT_TOKEN_TIME_LIMITS.clockSkewSeconds,
    };
    if (config.mode === 'jwt') {
      if (config.jwksUrl) this.key = createRemoteJWKSet(new URL(config.jwksUrl));
      // One KeyObject for the process: handing jose raw bytes makes it build one per request.
      else if (config.secret) this.key = createSecretKey(Buffer.from(config.secret, 'utf8'));
      else throw new Error('JWT authentication needs ESTATE_JWT_SECRET or ESTATE_JWKS_URL');
    }
  }

  async resolve(authorization: string | undefined): Promise<AuthResult> {
    if (this.config.mode === 'none') return { ok: true, principal: this.config.principal };
    const match = /^Bearer\s+([A-Za-z0-9._~+/=-]+)$/i.exec(authorization ?? '');
    if (!match) return { ok: false, reason: 'missing' };
    const token = match[1];
    // One-shot hash: a Hash object per request was a visible share of the edge's work per call.
    const id = hash('sha256', token, 'base64url');
    const now = this.now();
    const known = this.remembered.get(id);
    if (known) {
      this.remembered.delete(id);
      if (now < known.until) {
        this.remembered.set(id, known);
        return known.result;
      }
    }
    const fresh = await this.verify(token, now);
    this.remember(id, fresh);
    return fresh.result;
  }

  private async verify(token: string, now: number): Promise<Remembered> {
    const refused: Remembered = { result: { ok: false, reason: 'invalid' }, until: now + REFUSED_TTL_MS };
    try {
      const options = {
        issuer: this.config.mode === 'jwt' ? this.config.issuer : undefined,
        audience: this.config.mode === 'jwt' ? this.config.audience : undefined,
        algorithms: typeof this.key === 'function' ? undefined : ['HS256'],
        currentDate: new Date(now),
      };
      const { payload } = typeof this.key === 'function'
        ? await jwtVerify(token, this.key, options)
        : await jwtVerify(token, this.key as KeyObject, options);
      const principal = principalFromClaims(payload);
      if (!principal || !withinTimeLimits(payload, now, this.limits)) return refused;
      return { result: { ok: true, principal }, until: Math.min((payload.exp as number) * 1000, now + VERIFIED_TTL_MS) };
    } catch {
      return refused;
    }
  }

  private remember(id: string, entry: Remembered): void {
    this.remembered.set(id, entry);
    keepWithin(this.remembered, this.cacheLimit);
  }
}

/**
 * A stolen token is only as dangerous as it is long-lived: a token must say when it expires
 * (`exp`), may not live longer than the configured maximum, and may not claim to be issued in
 * the future beyond the clock skew (a far-future `iat` would stretch the lifetime check).
 * jose has already checked that `exp` lies ahead and that both claims, when present, are numbers.
 */
export function withinTimeLimits(payload: JWTPayload, nowMs: number, limits: TokenTimeLimits): boolean {
  if (typeof payload.exp !== 'number') return false;
  const now = nowMs / 1000;
  if (payload.iat !== undefined && (typeof payload.iat !== 'number' || payload.iat > now + limits.clockSkewSeconds)) return false;
  const issued = typeof payload.iat === 'number' ? payload.iat : now;
  return payload.exp - issued <= limits.maxLifetimeSeconds;
}

/** Longest subject or tenant a token may carry: they are stored with every fact and call a principal makes. */
const MAX_CLAIM_ID = 256;

/** Control characters: a subject or tenant is a name, and names with line breaks forge log and export lines. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const usableId = (value: unknown): boolean =>
  typeof value === 'string' && value.length > 0 && value.length <= MAX_CLAIM_ID && !CONTROL.test(value) && !hasUnstorableText(value);

/** `scope` as RFC 8693 writes it (one space-separated string), or as a list of scope tokens; undefined: neither. */
function scopesOf(claim: unknown): string[] | undefined {
  if (claim === undefined) return [];
  if (typeof claim === 'string') return claim.split(' ').filter((s) => s.length > 0);
  if (Array.isArray(claim) && claim.every((s) => typeof s === 'string' && s.length > 0 && !/\s/.test(s))) return claim as string[];
  return undefined;
}

/**
 * The principal a token's claims describe, or undefined (the token is refused with 401) when a
 * claim is there but malformed: a tenant that is not one name, a scope that is neither a string
 * nor a list of scopes, a clearance that is not one of the four levels. Each of those used to
 * read as "none", which fails closed but hides an identity provider's mistake behind rights that
 * silently went missing.
 */
export function principalFromClaims(payload: JWTPayload): Principal | undefined {
  if (!usableId(payload.sub)) return undefined;
  if (payload.tenant !== undefined && !usableId(payload.tenant)) return undefined;
  const scopes = scopesOf(payload.scope);
  if (scopes === undefined) return undefined;
  if (payload.clearance !== undefined && !CLEARANCES.includes(payload.clearance as DataClassification)) return undefined;
  return {
    id: payload.sub as string,
    tenant: payload.tenant as string | undefined,
    scopes,
    clearance: (payload.clearance as DataClassification | undefined) ?? 'public',
  };
}
