import type { IncomingMessage, ServerResponse } from 'node:http';

export interface RequestGuardOptions {
  allowedOrigins: string[];
  /** Host names (without port) accepted in the Host header; empty accepts any well-formed one. */
  allowedHosts: string[];
  resourceMetadataUrl: string;
}

/**
 * Transport-level checks that come before any MCP processing: a browser Origin must be listed
 * (DNS-rebinding defence), the Host must be one well-formed `host[:port]` we serve, and a failed
 * token gets the OAuth challenge pointing at the protected-resource metadata.
 */
export class RequestGuard {
  private readonly allowedHosts: string[];

  constructor(private readonly options: RequestGuardOptions) {
    // Listed hosts may carry a port or capitals; the Host header is compared by name only.
    this.allowedHosts = options.allowedHosts.map((host) => hostName(host) ?? host.toLowerCase());
  }

  check(req: IncomingMessage, res: ServerResponse): boolean {
    // Node keeps the first of several Host headers; a proxy in front may have read another one.
    if (hostHeaderCount(req.rawHeaders) > 1) {
      this.refuse(res, 400, 'Bad Request: more than one Host header');
      return false;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !this.options.allowedOrigins.includes(origin)) {
      this.refuse(res, 403, 'Forbidden: Origin not allowed');
      return false;
    }
    // A Host that is not `host[:port]` (`localhost:7290@evil.com`) names no host: it is never read as one.
    const host = hostName(req.headers.host);
    if (host === undefined || (this.allowedHosts.length > 0 && !this.allowedHosts.includes(host))) {
      this.refuse(res, 403, 'Forbidden: Host not allowed');
      return false;
    }
    if (origin !== undefined) {
      // A listed browser origin may read our answers, including the session id it must send back.
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Vary', 'Origin');
      res.setHeader('Access-Control-Expose-Headers', 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate');
    }
    return true;
  }

  challenge(res: ServerResponse, reason: 'missing' | 'invalid'): void {
    const error = reason === 'invalid' ? ', error="invalid_token"' : '';
    res.setHeader('WWW-Authenticate', `Bearer resource_metadata="${this.options.resourceMetadataUrl}"${error}`);
    this.refuse(res, 401, 'Unauthorized: a valid bearer token is required');
  }

  private refuse(res: ServerResponse, status: number, message: string): void {
    const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message } });
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  }
}

/** `name[:port]` or `[v6][:port]`: letters, digits, `.`, `-` and `_` in a name, nothing else (no userinfo, path or space). */
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::[0-9]{0,5})?$/;

/**
 * The host part of a Host header value (`name:port`, `[v6]:port`), lower-cased; '' when there is
 * none; undefined when the value is not a host and optional port.
 */
export function hostName(host: string | undefined): string | undefined {
  const value = (host ?? '').trim().toLowerCase();
  if (value === '') return '';
  return HOST_HEADER.exec(value)?.[1];
}

function hostHeaderCount(rawHeaders: string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].toLowerCase() === 'host') count += 1;
  return count;
}
