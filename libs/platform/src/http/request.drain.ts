import type { Server, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';

/**
 * Closing a Nest application closes its HTTP server last, after every shutdown hook: until then a
 * client on a keep-alive connection kept being served (publishes accepted while the consumers and
 * the database were stopping). Once `stop()` runs, the server takes nothing more: it stops listening,
 * closes idle keep-alive connections, answers the requests it already took with `Connection: close`,
 * and refuses any later request on an open connection with 503 and `Connection: close`.
 */
export class RequestDrain {
  private draining = false;
  private readonly inFlight = new Set<ServerResponse>();

  constructor(private readonly server: Server) {}

  /** Express middleware, mounted ahead of every other one. */
  readonly gate = (_request: Request, response: Response, next: NextFunction): void => {
    if (this.draining) {
      refuse(response);
      return;
    }
    this.inFlight.add(response);
    // 'close' follows 'finish' on every response, and also ends one whose client went away.
    response.once('close', () => this.inFlight.delete(response));
    next();
  };

  get stopping(): boolean {
    return this.draining;
  }

  /** Idempotent; synchronous, so no request slips in between the signal and the stop. */
  stop(): void {
    if (this.draining) return;
    this.draining = true;
    for (const response of this.inFlight) if (!response.headersSent) response.setHeader('Connection', 'close');
    if (this.server.listening) this.server.close();
    this.server.closeIdleConnections();
  }
}

function refuse(response: Response): void {
  response.status(503).set({ Connection: 'close', 'Retry-After': '1', 'Content-Type': 'application/json' });
  response.end(JSON.stringify({ error: 'STOPPING', message: 'the service is stopping; retry once it is back' }));
}
