import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ClientCapabilities, Implementation, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** What the session learnt from its client's initialize request. */
export interface ClientInfo {
  capabilities?: ClientCapabilities;
  clientInfo?: Implementation;
}

export type Handler = (...args: never[]) => unknown;

export interface LazyServerOptions {
  /** A new SDK server with the session manager's own handlers (it is connected here). */
  build: () => Server;
  transport: Transport;
  /** The client's initialize, answered without the SDK: the server built later must know it. */
  client: () => ClientInfo | undefined;
  /** Hears each handler as it is registered (the fast path runs some of them itself). */
  registered?: (schema: unknown, handler: Handler) => void;
}

/**
 * A session's SDK `Server`, built only when something needs its request machinery: a method the
 * fast path does not serve (resources, prompts, logging, …) or a request to the client
 * (elicitation, sampling). Until then it is a stand-in that records the handlers extensions
 * register, answers what it knows (the client's capabilities) and sends notifications straight
 * to the transport, as the SDK would. A server with its handlers, maps and closures was most of
 * an idle session's memory, and nearly every session only lists and calls tools.
 */
export class LazySessionServer {
  /** What extensions see: the stand-in while no server is built, the server's own members after. */
  readonly server: Server;
  private real?: Server;
  private closed = false;
  private readonly handlers: Array<[unknown, Handler]> = [];
  private onclose?: () => void;

  constructor(private readonly options: LazyServerOptions) {
    const own: Record<string, unknown> = {
      setRequestHandler: (schema: unknown, handler: Handler) => {
        this.handlers.push([schema, handler]);
        this.options.registered?.(schema, handler);
      },
      getClientCapabilities: () => this.options.client()?.capabilities,
      getClientVersion: () => this.options.client()?.clientInfo,
      notification: (notification: { method: string; params?: Record<string, unknown> }, options?: TransportSendOptions) => this.notify(notification, options),
      sendToolListChanged: () => this.notify({ method: 'notifications/tools/list_changed' }),
      sendResourceUpdated: (params: Record<string, unknown>) => this.notify({ method: 'notifications/resources/updated', params }),
      close: async () => this.close(),
    };
    this.server = new Proxy({} as Server, {
      get: (_target, key) => {
        if (this.real) return bound(this.real, key);
        if (key === 'onclose') return this.onclose;
        if (typeof key === 'string' && key in own) return own[key];
        return bound(this.ensure(), key);
      },
      set: (_target, key, value) => {
        if (this.real) return Reflect.set(this.real, key, value);
        if (key === 'onclose') this.onclose = value as () => void;
        else Reflect.set(this.ensure(), key, value);
        return true;
      },
    });
  }

  get built(): boolean {
    return this.real !== undefined;
  }

  /** The SDK server, built and connected now if it was not yet; handlers registered meanwhile go on it in order. */
  ensure(): Server {
    if (this.real) return this.real;
    const server = this.options.build();
    for (const [schema, handler] of this.handlers) server.setRequestHandler(schema as never, handler as never);
    this.handlers.length = 0;
    server.onclose = this.onclose;
    const client = this.options.client();
    // The SDK keeps what initialize told it in these fields (its initialize handler sets them);
    // the answer went out on the fast path, so they are set here, where getClientCapabilities reads them.
    Object.assign(server, { _clientCapabilities: client?.capabilities, _clientVersion: client?.clientInfo });
    this.real = server;
    void server.connect(this.options.transport);
    if (this.closed) void server.close();
    return server;
  }

  /** The SDK's notification path without its machinery: one JSON-RPC message to the transport. */
  private async notify(notification: { method: string; params?: Record<string, unknown> }, options?: TransportSendOptions): Promise<void> {
    if (this.closed) throw new Error('Not connected');
    await this.options.transport.send({ ...notification, jsonrpc: '2.0' } as JSONRPCMessage, options);
  }

  /** As the SDK server's close: the transport closes, and whoever listens for the end hears it once. */
  private async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.options.transport.close();
    this.onclose?.();
  }
}

function bound(target: Server, key: PropertyKey): unknown {
  const value = Reflect.get(target, key) as unknown;
  return typeof value === 'function' ? (value as Handler).bind(target) : value;
}
