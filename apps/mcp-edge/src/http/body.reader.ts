import type { IncomingMessage } from 'node:http';

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
  const body = await collect(req, limit);
  if (body === undefined) return tooLarge;
  try {
    return { ok: true, text: UTF8.decode(body) };
  } catch {
    return { ok: false, status: 400, code: -32700, message: 'Parse error: the request body is not valid UTF-8' };
  }
}

/**
 * The body's bytes, or undefined once they pass `limit` (the request is then destroyed, as leaving
 * a `for await` loop over it would). Plain listeners: an async iterator per request was a visible
 * share of the edge's CPU per call. Fails as the iterator would if the request errs or closes early.
 */
function collect(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    if (req.readableEnded) return resolve(Buffer.alloc(0));
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      done();
      req.destroy();
      resolve(undefined);
    };
    const onEnd = () => {
      done();
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    const onClose = () => {
      done();
      reject(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
