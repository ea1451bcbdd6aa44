import { SignJWT } from 'jose';

export interface TokenClaims {
  sub: string;
  tenant?: string;
  scope?: string;
  clearance?: string;
}

/** Issues an HS256 development token (quick start, tests, the CLI). Production uses a real IdP via JWKS. */
export async function issueDevToken(
  secret: string,
  claims: TokenClaims,
  options: { audience?: string; issuer?: string; expiresIn?: string } = {},
): Promise<string> {
  let jwt = new SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt();
  jwt = jwt.setSubject(claims.sub).setExpirationTime(options.expiresIn ?? '12h');
  if (options.audience) jwt = jwt.setAudience(options.audience);
  if (options.issuer) jwt = jwt.setIssuer(options.issuer);
  return jwt.sign(new TextEncoder().encode(secret));
}
