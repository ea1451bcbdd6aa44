import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordingProxy {
  /** Same path as the target's, on the proxy's port. */
  url: string;
  /** The `traceparent` header of every request that reached the proxy, in order (absent ones left out). */
  traceparents: string[];
  close(): Promise<void>;
}

/** A plain HTTP proxy in front of one upstream that remembers what trace context each request carried. */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const to = new URL(target);
  const traceparents: string[] = [];
  const server = http.createServer((req, res) => {
    const traceparent = req.headers.traceparent;
    if (typeof traceparent === 'string') traceparents.push(traceparent);
    const forward = http.request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${to.pathname}`,
    traceparents,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
