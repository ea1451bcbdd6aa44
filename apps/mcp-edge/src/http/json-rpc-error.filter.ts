import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';

/**
 * Nest's own refusals on the edge's other routes (an unknown path, a bad body) carry a JSON-RPC
 * error body like every other refusal of the edge, and never the framework's wording or details.
 */
@Catch()
export class JsonRpcErrorFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const status = exception instanceof HttpException ? exception.getStatus() : 500;
    const message = status === 404 ? 'Not Found: the MCP endpoint is /mcp' : status < 500 ? `Bad Request (HTTP ${status})` : 'Internal error';
    if (res.headersSent) return void res.end();
    res.status(status).json({ jsonrpc: '2.0', id: null, error: { code: status < 500 ? -32600 : -32603, message } });
  }
}
