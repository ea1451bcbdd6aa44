import { SignJWT } from 'jose';
import { PrincipalResolver, REFUSED_TTL_MS, VERIFIED_TTL_MS } from './principal.auth';
import { issueDevToken } from './token.issuer';

const SECRET = 'principal-auth-spec-secret-at-least-32-bytes';
const START = Date.UTC(2026, 0, 1, 12, 0, 0);

async function token(claims: Record<string, unknown>, expiresAtMs?: number, notBeforeMs?: number, issuedAtMs?: number): Promise<string> {
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject('agent-7');
  if (expiresAtMs !== undefined) jwt = jwt.setExpirationTime(Math.floor(expiresAtMs / 1000));
  if (notBeforeMs !== undefined) jwt = jwt.setNotBefore(Math.floor(notBeforeMs / 1000));
  if (issuedAtMs !== undefined) jwt = jwt.setIssuedAt(Math.floor(issuedAtMs / 1000));
  return jwt.sign(new TextEncoder().encode(SECRET));
}

const HOUR = 3600_000;

/** A resolver on a clock the test moves. */
function resolverAt(): { resolver: PrincipalResolver; advance: (ms: number) => void } {
  let now = START;
  const resolver = new PrincipalResolver({ mode: 'jwt', secret: SECRET }, { now: () => now });
  return { resolver, advance: (ms) => void (now += ms) };
}

describe('PrincipalResolver', () => {
  it('turns a valid token into its principal, again and again', async () => {
    const { resolver } = resolverAt();
    const bearer = `Bearer ${await token({ scope: 'bank:read bank:write', tenant: 'acme', clearance: 'internal' }, START + 60_000)}`;
    const expected = { ok: true, principal: { id: 'agent-7', tenant: 'acme', scopes: ['bank:read', 'bank:write'], clearance: 'internal' } };
    expect(await resolver.resolve(bearer)).toEqual(expected);
    expect(await resolver.resolve(bearer)).toEqual(expected);
  });

  it('refuses a token the moment it expires, even one it accepted before', async () => {
    const { resolver, advance } = resolverAt();
    const bearer = `Bearer ${await token({ scope: 'bank:read' }, START + 60_000)}`;
    expect(await resolver.resolve(bearer)).toMatchObject({ ok: true });
    advance(59_000);
    expect(await resolver.resolve(bearer)).toMatchObject({ ok: true });
    advance(1_000);
    expect(await resolver.resolve(bearer)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('re-verifies a token once its time in memory is up', async () => {
    const { resolver, advance } = resolverAt();
    const bearer = `Bearer ${await token({ scope: 'bank:read' }, START + HOUR)}`;
    expect(await resolver.resolve(bearer)).toMatchObject({ ok: true });
    advance(VERIFIED_TTL_MS + 1);
    expect(await resolver.resolve(bearer)).toMatchObject({ ok: true, principal: { id: 'agent-7' } });
  });

  it('refuses a token without exp, one that lives longer than the maximum, and one issued in the future', async () => {
    const { resolver } = resolverAt();
    const refused = { ok: false, reason: 'invalid' };
    expect(await resolver.resolve(`Bearer ${await token({ scope: 'a' })}`)).toEqual(refused);
    expect(await resolver.resolve(`Bearer ${await token({ scope: 'a' }, START + 25 * HOUR)}`)).toEqual(refused);
    expect(await resolver.resolve(`Bearer ${await token({ scope: 'a' }, START + 2 * HOUR, undefined, START - 23 * HOUR)}`)).toEqual(refused);
    expect(await resolver.resolve(`Bearer ${await token({ scope: 'a' }, START + 365 * 24 * HOUR, undefined, START + 364 * 24 * HOUR)}`)).toEqual(refused);
    expect(await resolver.resolve(`Bearer ${await token({ scope: 'a' }, START + HOUR, undefined, START + 61_000)}`)).toEqual(refused);
  });

  it('accepts a token at the edge of the limits: 24 h of life, an iat within the clock skew', async () => {
    const { resolver } = resolverAt();
    expect(await resolver.resolve(`Bearer ${await token({ scope: 'a' }, START + 24 * HOUR)}`)).toMatchObject({ ok: true });
    expect(await resolver.resolve(`Bearer ${await token({ scope: 'b' }, START + 24 * HOUR, undefined, START)}`)).toMatchObject({ ok: true });
    expect(await resolver.resolve(`Bearer ${await token({ scope: 'c' }, START + HOUR, undefined, START + 60_000)}`)).toMatchObject({ ok: true });
  });

  it('takes its limits from the configuration', async () => {
    const now = START;
    const strict = new PrincipalResolver({ mode: 'jwt', secret: SECRET, maxLifetimeSeconds: 600, clockSkewSeconds: 0 }, { now: () => now });
    expect(await strict.resolve(`Bearer ${await token({ scope: 'a' }, START + 601_000, undefined, START)}`)).toEqual({ ok: false, reason: 'invalid' });
    expect(await strict.resolve(`Bearer ${await token({ scope: 'b' }, START + 600_000, undefined, START)}`)).toMatchObject({ ok: true });
    expect(await strict.resolve(`Bearer ${await token({ scope: 'c' }, START + 300_000, undefined, START + 1_000)}`)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('remembers a refusal only briefly: a token that was not yet valid works seconds later', async () => {
    const { resolver, advance } = resolverAt();
    const bearer = `Bearer ${await token({ scope: 'bank:read' }, START + 600_000, START + 1_000)}`;
    expect(await resolver.resolve(bearer)).toEqual({ ok: false, reason: 'invalid' });
    advance(REFUSED_TTL_MS);
    expect(await resolver.resolve(bearer)).toMatchObject({ ok: true, principal: { id: 'agent-7' } });
  });

  it('refuses a missing, malformed, forged or subject-less token', async () => {
    const { resolver } = resolverAt();
    const forged = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('agent-7').setExpirationTime(Math.floor(START / 1000) + 60).sign(new TextEncoder().encode('another-secret-of-at-least-32-bytes!'));
    const anonymous = await new SignJWT({ scope: 'x' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(Math.floor(START / 1000) + 60).sign(new TextEncoder().encode(SECRET));
    expect(await resolver.resolve(undefined)).toEqual({ ok: false, reason: 'missing' });
    expect(await resolver.resolve('Basic abc')).toEqual({ ok: false, reason: 'missing' });
    expect(await resolver.resolve(`Bearer ${forged}`)).toEqual({ ok: false, reason: 'invalid' });
    expect(await resolver.resolve(`Bearer ${anonymous}`)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('refuses a subject or tenant no store could keep, or with control characters: NUL, a lone surrogate, over 256 characters, a line break', async () => {
    const { resolver } = resolverAt();
    const key = new TextEncoder().encode(SECRET);
    for (const [sub, tenant] of [['a\u0000b', undefined], ['b\ud800', undefined], ['s'.repeat(257), undefined], ['ok', 't\u0000'], ['line\nbreak', undefined], ['tab\there', undefined], ['c1\u0085', undefined]]) {
      const jwt = await new SignJWT(tenant === undefined ? {} : { tenant }).setProtectedHeader({ alg: 'HS256' }).setSubject(sub as string)
        .setExpirationTime(Math.floor((START + HOUR) / 1000)).sign(key);
      expect(await resolver.resolve(`Bearer ${jwt}`)).toEqual({ ok: false, reason: 'invalid' });
    }
  });

  it('refuses a token whose rights are malformed instead of reading them as none', async () => {
    const { resolver } = resolverAt();
    const exp = START + HOUR;
    for (const claims of [
      { tenant: ['t-secret', 'x'] }, { tenant: 7 }, { tenant: '' }, { scope: 7 }, { scope: ['bank:read', 'two words'] },
      { clearance: 'god' }, { clearance: 'INTERNAL' }, { clearance: 3 }, { tenant: 'cr\r' },
    ]) {
      expect([claims, await resolver.resolve(`Bearer ${await token(claims, exp)}`)]).toEqual([claims, { ok: false, reason: 'invalid' }]);
    }
    // A list of scope tokens is as clear as one space-separated string.
    expect(await resolver.resolve(`Bearer ${await token({ scope: ['bank:read', 'bank:write'], clearance: 'internal', tenant: 'acme' }, exp)}`)).toEqual({
      ok: true, principal: { id: 'agent-7', tenant: 'acme', scopes: ['bank:read', 'bank:write'], clearance: 'internal' },
    });
  });

  it('accepts the development tokens the CLI issues', async () => {
    const resolver = new PrincipalResolver({ mode: 'jwt', secret: SECRET });
    const dev = await issueDevToken(SECRET, { sub: 'dev', scope: 'a', clearance: 'restricted' });
    expect(await resolver.resolve(`Bearer ${dev}`)).toEqual({ ok: true, principal: { id: 'dev', tenant: undefined, scopes: ['a'], clearance: 'restricted' } });
  });

  it('keeps at most its limit of tokens and still resolves the ones it forgot', async () => {
    const resolver = new PrincipalResolver({ mode: 'jwt', secret: SECRET }, { cacheLimit: 2 });
    const bearers = await Promise.all(['a', 'b', 'c'].map(async (scope) => `Bearer ${await token({ scope }, Date.now() + 60_000)}`));
    for (const bearer of [...bearers, ...bearers]) {
      expect(await resolver.resolve(bearer)).toMatchObject({ ok: true });
    }
    expect((await resolver.resolve(bearers[0])) as { principal: { scopes: string[] } }).toMatchObject({ principal: { scopes: ['a'] } });
  });
});
