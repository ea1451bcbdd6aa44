import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { ADDRESS_REFUSED, guardedLookup, urlHost, type TargetAddressPolicy } from '@estate/platform';

export type SendOutcome = { ok: true; status: number } | { ok: false; error: string; refused?: boolean };

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Answers read past this are not needed: only the status counts. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs one delivery. A 2xx is success; anything else (a redirect too: following one would leave
 * the allow-list's judgement behind) is a failure to retry. The address check runs inside the
 * socket's lookup, so it judges exactly the address connected to.
 */
export class WebhookSender {
  private readonly lookup;

  constructor(private readonly policy: TargetAddressPolicy, private readonly timeoutMs: number) {
    this.lookup = guardedLookup(policy);
  }

  /** `stop` aborts the attempt at once (audit is stopping): it then ends as a failure like any other, which the caller may disregard. */
  send(request: WebhookRequest, stop?: AbortSignal): Promise<SendOutcome> {
    const url = new URL(request.url);
    const host = urlHost(url);
    if (isIP(host) !== 0 && !this.policy.admitsAddress(host) && !this.policy.admitsHostName(host)) {
      return Promise.resolve({ ok: false, error: `${host} may not be reached`, refused: true });
    }
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve) => {
      const outgoing = client.request(url, {
        method: 'POST',
        headers: { ...request.headers, 'content-length': Buffer.byteLength(request.body) },
        lookup: this.lookup,
        timeout: this.timeoutMs,
        signal: stop === undefined ? AbortSignal.timeout(this.timeoutMs) : AbortSignal.any([AbortSignal.timeout(this.timeoutMs), stop]),
      }, (answer) => {
        let read = 0;
        answer.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) answer.destroy();
        });
        answer.on('close', () => {
          const status = answer.statusCode ?? 0;
          resolve(status >= 200 && status < 300 ? { ok: true, status } : { ok: false, error: `answered ${status}` });
        });
      });
      outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      outgoing.on('error', (error: Error & { code?: string }) => resolve({
        ok: false, error: error.message, refused: error.code === ADDRESS_REFUSED,
      }));
      outgoing.end(request.body);
    });
  }
}
