import * as http from 'node:http';
import { loadAgent, parseAnswer, type RpcAnswer } from './support/mcp-http.client';

const V2026 = '2026-07-28';

/**
 * A client of the 2026-07-28 revision for the load run: no session, every POST carries the
 * version and capabilities in `_meta` and mirrors method and tool name into headers. Node's own
 * http client on the bench's keep-alive agent, like the session client beside it.
 */
export class StatelessPoster {
  private nextId = 1;

  constructor(private readonly url: URL, private readonly token: string) {}

  async call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const answer = await this.post('tools/call', { name, arguments: args });
    if (answer.error || !answer.result || answer.result.isError === true) throw new Error(`tools/call failed: ${JSON.stringify(answer.error ?? answer.result)}`);
    return answer.result;
  }

  private async post(method: string, params: Record<string, unknown>): Promise<RpcAnswer> {
    const id = this.nextId++;
    const meta = { 'io.modelcontextprotocol/protocolVersion': V2026, 'io.modelcontextprotocol/clientCapabilities': {} };
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } });
    const headers: Record<string, string | number> = {
      'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${this.token}`,
      'mcp-protocol-version': V2026, 'mcp-method': method, 'content-length': Buffer.byteLength(body),
    };
    if (typeof params.name === 'string') headers['mcp-name'] = params.name;
    const response = await new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const req = http.request({ host: this.url.hostname, port: this.url.port, path: this.url.pathname, method: 'POST', agent: loadAgent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
    return parseAnswer(response, id);
  }
}
