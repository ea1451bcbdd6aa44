import type { IncomingMessage } from 'node:http';

/**
 * A request body's bytes, or undefined once they pass `limit`. The rest of an oversized body is
 * not kept: the caller answers 413 with `Connection: close`, and node closes the socket once the
 * answer is out. (Destroying the request here closed the socket before the answer was written, so
 * a chunked body over the limit got a reset instead of a 413.) Plain listeners: an async iterator
 * per request was a visible share of the edge's CPU per call. Fails as the iterator would if the
 * request errs or closes before its end.
 */
export function collectBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
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
      // Still flowing, with no listener: what else arrives before the socket closes is dropped.
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
