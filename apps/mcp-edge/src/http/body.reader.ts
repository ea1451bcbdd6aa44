import type { IncomingMessage } from 'node:http';

export type BodyResult = { ok: true; text: string } | { ok: false; status: 400 | 413 | 415; message: string };

/** Reads a JSON request body up to a limit; an oversized body is refused without reading the rest. */
export async function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) {
    return { ok: false, status: 415, message: 'Unsupported Media Type: Content-Type must be application/json' };
  }
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) return { ok: false, status: 413, message: `Request body larger than ${limit} bytes` };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      return { ok: false, status: 413, message: `Request body larger than ${limit} bytes` };
    }
    chunks.push(chunk);
  }
  return { ok: true, text: Buffer.concat(chunks).toString('utf8') };
}
