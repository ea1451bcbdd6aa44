import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

interface ParserError extends Error {
  code?: string;
}

/** Node's HTTP parser codes we answer with a status of their own; every other parse failure is a 400. */
const STATUS_BY_CODE: Record<string, { status: number; reason: string; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, reason: 'Request Header Fields Too Large', message: 'Request Header Fields Too Large: the request headers exceed the server limit' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', message: 'Request Timeout: the request was not received in time' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, reason: 'Payload Too Large', message: 'Payload Too Large: chunk extensions exceed the server limit' },
};

/**
 * Requests Node refuses before any handler runs (oversized headers, malformed HTTP) would get a
 * bare status line with no body. Every refusal from the edge carries a JSON-RPC error body, so
 * this answers them itself, without echoing anything of the failed request or the parser.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: ParserError, socket: Duplex) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const known = STATUS_BY_CODE[error.code ?? ''] ?? { status: 400, reason: 'Bad Request', message: 'Bad Request: the HTTP request could not be parsed' };
    const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: known.message } });
    socket.end(
      `HTTP/1.1 ${known.status} ${known.reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}
