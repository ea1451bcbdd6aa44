import type { IncomingMessage } from 'node:http';
import { collectBody } from '@estate/platform';

export type BodyResult = { ok: true; text: string } | { ok: false; status: 400 | 413 | 415; code: number; message: string };

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a JSON request body up to a limit. An oversized body is refused as soon as it is known to
 * be too large (from Content-Length, or while reading), and bytes that are not UTF-8 are a parse
 * error rather than being silently replaced (JSON on the wire is UTF-8, RFC 8259).
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    return { ok: false, status: 415, code: -32600, message: 'Unsupported Media Type: Content-Type must be application/json' };
  }
  const tooLarge = { ok: false, status: 413, code: -32600, message: `Payload Too Large: the request body exceeds ${limit} bytes` } as const;
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) return tooLarge;
  const body = await collectBody(req, limit);
  if (body === undefined) return tooLarge;
  try {
    return { ok: true, text: UTF8.decode(body) };
  } catch {
    return { ok: false, status: 400, code: -32700, message: 'Parse error: the request body is not valid UTF-8' };
  }
}
