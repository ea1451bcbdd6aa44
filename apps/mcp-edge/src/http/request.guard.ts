import type { IncomingMessage, ServerResponse } from 'node:http';

export interface RequestGuardOptions {
  allowedOrigins: string[];
  /** Host names (without port) accepted in the Host header; empty accepts any. */
  allowedHosts: string[];
  resourceMetadataUrl: string;
}

/**
 * Transport-level checks that come before any MCP processing: a browser Origin must be listed
 * (DNS-rebinding defence), the Host must be one we serve, and a failed token gets the OAuth
 * challenge pointing at the protected-resource metadata.
 */
export class RequestGuard {
  private readonly allowedHosts: string[];

  constructor(private readonly options: RequestGuardOptions) {
    // Listed hosts may carry a port or capitals; the Host header is compared by name only.
    this.allowedHosts = options.allowedHosts.map((host) => hostName(host));
  }

  check(req: IncomingMessage, res: ServerResponse): boolean {
    const origin = req.headers.origin;
    if (origin !== undefined && !this.options.allowedOrigins.includes(origin)) {
      this.refuse(res, 403, 'Forbidden: Origin not allowed');
      return false;
    }
    if (this.allowedHosts.length > 0 && !this.allowedHosts.includes(hostName(req.headers.host))) {
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

/** The host part of a Host header value (`name:port`, `[v6]:port`), lower-cased. */
export function hostName(host: string | undefined): string {
  const value = (host ?? '').trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(0, value.indexOf(']') + 1);
  return value.split(':')[0];
}
