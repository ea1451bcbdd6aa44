import * as http from 'node:http';

/** Answers the load client reads: the JSON-RPC result or error of one request. */
export interface RpcAnswer {
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

const PROTOCOL_VERSION = '2025-06-18';

/**
 * One keep-alive agent for the whole load run. Node's own http client costs a few microseconds
 * per request, so the client never becomes the bottleneck the way the SDK client would.
 */
export const loadAgent = new http.Agent({ keepAlive: true, maxSockets: 1024, maxFreeSockets: 1024 });

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** From the request's send to the last byte of its answer, before the client reads it. */
  wireMs: number;
}

function postOnce(url: URL, headers: Record<string, string>, body: string): Promise<RawResponse> {
  const sentAt = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent: loadAgent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const wireMs = performance.now() - sentAt;
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), wireMs });
        });
        res.on('error', reject);
      },
    );
    req.on('error', (error: Error & { reused?: boolean }) => reject(Object.assign(error, { reused: req.reusedSocket })));
    req.end(body);
  });
}

/**
 * A keep-alive socket the server closed while it sat idle fails the next request sent on it;
 * that request never reached the server, so it is sent once more on a fresh socket.
 */
async function post(url: URL, headers: Record<string, string>, body: string): Promise<RawResponse> {
  try {
    return await postOnce(url, headers, body);
  } catch (error) {
    if ((error as { reused?: boolean }).reused !== true) throw error;
    return postOnce(url, headers, body);
  }
}

/** The JSON-RPC response inside a plain JSON body or the `data:` lines of an SSE body. */
export function parseAnswer(response: Omit<RawResponse, 'wireMs'>, id: number): RpcAnswer {
  const type = String(response.headers['content-type'] ?? '');
  const candidates = type.includes('text/event-stream')
    ? response.body.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim())
    : [response.body];
  for (const text of candidates) {
    if (!text) continue;
    const message = JSON.parse(text) as RpcAnswer & { id?: number };
    if (message.id === id) return message;
  }
  throw new Error(`no answer to request ${id} (HTTP ${response.status}): ${response.body.slice(0, 200)}`);
}

/** A minimal MCP-over-Streamable-HTTP session: initialize, then JSON-RPC posts with SSE answers. */
export class McpHttpSession {
  private nextId = 1;
  private sessionId = '';
  /**
   * The last request's time from send to the last byte of its answer: a 200-tool page takes the
   * client longer to parse (~0.5 ms) than the edge to serve, so list latency is taken before that.
   */
  lastWireMs = 0;

  private constructor(private readonly url: URL, private readonly token: string | undefined) {}

  static async open(url: string, token?: string): Promise<McpHttpSession> {
    const session = new McpHttpSession(new URL(url), token);
    await session.initialize();
    return session;
  }

  get id(): string {
    return this.sessionId;
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (this.sessionId) {
      headers['mcp-session-id'] = this.sessionId;
      headers['mcp-protocol-version'] = PROTOCOL_VERSION;
    }
    return headers;
  }

  private async initialize(): Promise<void> {
    const id = this.nextId++;
    const params = { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'estate-bench', version: '1.0.0' } };
    const response = await post(this.url, this.headers(), JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params }));
    const answer = parseAnswer(response, id);
    const sessionId = response.headers['mcp-session-id'];
    if (answer.error || typeof sessionId !== 'string') throw new Error(`initialize failed (HTTP ${response.status}): ${response.body.slice(0, 200)}`);
    this.sessionId = sessionId;
    const ack = await post(this.url, this.headers(), JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    if (ack.status !== 202) throw new Error(`notifications/initialized answered HTTP ${ack.status}`);
  }

  async request(method: string, params: Record<string, unknown>): Promise<RpcAnswer> {
    const id = this.nextId++;
    const response = await post(this.url, this.headers(), JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    this.lastWireMs = response.wireMs;
    return parseAnswer(response, id);
  }

  /** The request, failing loudly on a JSON-RPC error or a tool error so a broken run never looks fast. */
  async expect(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const answer = await this.request(method, params);
    if (answer.error || !answer.result || answer.result.isError === true) {
      throw new Error(`${method} failed: ${JSON.stringify(answer.error ?? answer.result)}`);
    }
    return answer.result;
  }

  /** Opens the standalone GET stream an SDK client keeps open for notifications; returns a closer. */
  openStream(agent: http.Agent): Promise<() => void> {
    return new Promise((resolve, reject) => {
      const req = http.get({ host: this.url.hostname, port: this.url.port, path: this.url.pathname, agent, headers: { ...this.headers(), accept: 'text/event-stream' } }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`GET stream answered HTTP ${res.statusCode}`));
        res.resume();
        resolve(() => req.destroy());
      });
      req.on('error', reject);
    });
  }
}
