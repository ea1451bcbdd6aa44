// The token lives in this tab's session storage only; it travels in the Authorization header of
// same-origin requests to the console, which relays it to the services. Never in a URL.
const KEY = 'estate.token';

export const session = {
  token: () => sessionStorage.getItem(KEY),
  signIn: (token) => sessionStorage.setItem(KEY, token.trim().replace(/^Bearer\s+/i, '')),
  signOut: () => sessionStorage.removeItem(KEY),
  /** What the token says about its holder, for display and for hiding actions it could not take; the services decide. */
  claims() {
    try {
      const part = (this.token() ?? '').split('.')[1] ?? '';
      const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
      const claims = JSON.parse(json);
      return { sub: String(claims.sub ?? '?'), scopes: String(claims.scope ?? '').split(' ').filter(Boolean) };
    } catch {
      return { sub: '?', scopes: [] };
    }
  },
};

export class ApiError extends Error {
  constructor(status, body) {
    super(`${status} ${body?.error ?? ''}: ${body?.message ?? 'request failed'}`);
    this.status = status;
    this.body = body;
  }
}

/** api('registry', '/v1/tools') → parsed JSON, or throws ApiError with the service's own message. */
export async function api(service, path, { method = 'GET', body, signal } = {}) {
  const headers = { authorization: `Bearer ${session.token()}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`/api/${service}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
  const parsed = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, parsed);
  return parsed;
}

export const enc = encodeURIComponent;
