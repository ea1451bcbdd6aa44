import { createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { DataClassification, Principal } from '@estate/contracts';

export type AuthConfig =
  | { mode: 'jwt'; secret?: string; jwksUrl?: string; issuer?: string; audience?: string }
  | { mode: 'none'; principal: Principal };

export type AuthResult = { ok: true; principal: Principal } | { ok: false; reason: 'missing' | 'invalid' };

const CLEARANCES: readonly DataClassification[] = ['public', 'internal', 'confidential', 'restricted'];

/** Turns `Authorization: Bearer <JWT>` into a principal. No token, or a bad one, is a refusal with no detail. */
export class PrincipalResolver {
  private readonly key?: Uint8Array | JWTVerifyGetKey;

  constructor(private readonly config: AuthConfig) {
    if (config.mode === 'jwt') {
      if (config.jwksUrl) this.key = createRemoteJWKSet(new URL(config.jwksUrl));
      else if (config.secret) this.key = new TextEncoder().encode(config.secret);
      else throw new Error('JWT authentication needs ESTATE_JWT_SECRET or ESTATE_JWKS_URL');
    }
  }

  async resolve(authorization: string | undefined): Promise<AuthResult> {
    if (this.config.mode === 'none') return { ok: true, principal: this.config.principal };
    const match = /^Bearer\s+([A-Za-z0-9._~+/=-]+)$/i.exec(authorization ?? '');
    if (!match) return { ok: false, reason: 'missing' };
    try {
      const { payload } = await jwtVerify(match[1], this.key as Uint8Array, {
        issuer: this.config.issuer,
        audience: this.config.audience,
        algorithms: this.config.jwksUrl ? undefined : ['HS256'],
      });
      const principal = principalFromClaims(payload);
      return principal ? { ok: true, principal } : { ok: false, reason: 'invalid' };
    } catch {
      return { ok: false, reason: 'invalid' };
    }
  }
}

export function principalFromClaims(payload: JWTPayload): Principal | undefined {
  if (typeof payload.sub !== 'string' || payload.sub.length === 0) return undefined;
  const scope = typeof payload.scope === 'string' ? payload.scope : '';
  const clearance = CLEARANCES.includes(payload.clearance as DataClassification)
    ? (payload.clearance as DataClassification)
    : 'public';
  return {
    id: payload.sub,
    tenant: typeof payload.tenant === 'string' ? payload.tenant : undefined,
    scopes: scope.split(' ').filter((s) => s.length > 0),
    clearance,
  };
}
