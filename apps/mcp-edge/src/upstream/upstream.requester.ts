import http, { type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { KeepAlivePool, type PooledRequest } from './keep-alive.pool';
import { fromIncoming, type UpstreamResponse } from './upstream-response';

/*
 * Idle sockets kept per upstream. Node keeps 256 by default, so after a burst of 1,000 calls it
 * closed ~750 sockets and the next burst connected them again (connect was a sixth of the edge's
 * CPU in the burst profile). LIFO reuse leaves the extra ones idle until the upstream's
 * keep-alive timeout closes them; the number in flight is not capped (a slow tool must not
 * queue the others).
 */
const MAX_IDLE = 2_048;
const AGENT_OPTIONS = { keepAlive: true, maxFreeSockets: MAX_IDLE, scheduling: 'lifo' } as const;

/** A request on its way: its response, and a way to abandon it. */
export type UpstreamRequest = PooledRequest;

/** The head of an HTTP/1.1 request as node's client would write it for these headers, checked by node's own validators. */
export function requestHead(method: string, url: URL, headers: OutgoingHttpHeaders): string {
  let head = `${method} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n`;
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value === undefined) continue;
    // node's own checks, so a header its client would refuse is refused here with the same error.
    http.validateHeaderName(name);
    for (const one of Array.isArray(value) ? value : [value]) {
      const text = String(one);
      http.validateHeaderValue(name, text);
      head += `${name}: ${text}\r\n`;
    }
  }
  return `${head}Connection: keep-alive\r\n\r\n`;
}

/**
 * Sends the client transport's HTTP requests to one upstream URL. POSTs to a plain-HTTP upstream,
 * which carry every call, go through the keep-alive pool: one write out, a small parser in.
 * The rest (TLS upstreams, the long-lived GET stream, the closing DELETE) use node's client with
 * a keep-alive agent.
 */
export class UpstreamRequester {
  private readonly agent: http.Agent;
  private readonly pool?: KeepAlivePool;

  constructor(private readonly url: URL, private readonly maxHeaderBytes: number) {
    const secure = url.protocol === 'https:';
    this.agent = secure ? new https.Agent(AGENT_OPTIONS) : new http.Agent(AGENT_OPTIONS);
    const port = Number(url.port || 80);
    // url.hostname keeps an IPv6 address in brackets, which net.connect does not take.
    if (!secure) this.pool = new KeepAlivePool(url.hostname.replace(/^\[(.*)\]$/, '$1'), port, { maxHeaderBytes, maxIdle: MAX_IDLE });
  }

  /** `onClose` runs once, when the exchange is over (answered in full, failed or abandoned). */
  send(method: string, headers: OutgoingHttpHeaders, body: string | undefined, onClose: () => void): UpstreamRequest {
    if (this.pool && method === 'POST') {
      let head: string;
      try {
        head = requestHead(method, this.url, headers);
      } catch (error) {
        queueMicrotask(onClose);
        return { response: Promise.reject(error as Error), destroy: () => undefined };
      }
      return this.pool.send(body === undefined ? head : head + body, onClose);
    }
    return this.viaNode(method, headers, body, onClose);
  }

  destroy(): void {
    this.pool?.destroy();
    this.agent.destroy();
  }

  private viaNode(method: string, headers: OutgoingHttpHeaders, body: string | undefined, onClose: () => void): UpstreamRequest {
    const send = this.url.protocol === 'https:' ? https.request : http.request;
    let req: http.ClientRequest | undefined;
    const response = new Promise<UpstreamResponse>((resolve, reject) => {
      try {
        req = send(this.url, { method, headers, agent: this.agent, maxHeaderSize: this.maxHeaderBytes });
      } catch (error) {
        queueMicrotask(onClose);
        throw error;
      }
      req.once('close', onClose);
      req.once('response', (res) => resolve(fromIncoming(res)));
      req.once('error', reject);
      req.end(body);
    });
    return { response, destroy: () => void req?.destroy() };
  }
}
