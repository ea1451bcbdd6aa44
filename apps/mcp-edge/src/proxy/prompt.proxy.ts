import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CompleteRequest, CompleteResult, GetPromptResult, ListPromptsResult, Prompt } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@estate/platform';
import { WireError } from '../mcp/wire-error';
import { candidatesFor, qualify, type ReachableServer } from './upstream-access';
import { toWireError, type UpstreamGateway } from './upstream.gateway';
import type { HandlerExtra, ProxySessionState } from './proxy-session.state';
import { unknownResource } from './resource.proxy';

/** The one answer for a prompt that does not exist and one the caller may not reach. */
export function unknownPrompt(name: string): WireError {
  return new WireError(-32602, `Unknown prompt: ${name}`);
}

interface PromptTarget {
  target: ReachableServer;
  client: Client;
  local: string;
}

/**
 * prompts/list, prompts/get and completion/complete. Prompt names are namespaced like tools:
 * `notes.summarize` is prompt `summarize` of server `notes`; a server with an empty namespace
 * keeps bare names (the first such server, by name, that has the prompt wins).
 */
export class PromptProxy {
  constructor(private readonly gateway: UpstreamGateway, private readonly logger: Logger) {}

  async list(state: ProxySessionState): Promise<ListPromptsResult> {
    const prompts: Prompt[] = [];
    const seen = new Set<string>();
    for (const { target, client } of await this.gateway.withCapability(state, 'prompts')) {
      try {
        for (const prompt of await this.upstreamPrompts(client)) {
          const name = qualify(target.namespace, prompt.name);
          if (seen.has(name)) continue;
          seen.add(name);
          prompts.push({ ...prompt, name });
        }
      } catch (error) {
        this.logger.warn({ server: target.server, err: error }, 'could not list upstream prompts');
      }
    }
    return { prompts };
  }

  async get(state: ProxySessionState, params: { name: string; arguments?: Record<string, string> }, extra: HandlerExtra): Promise<GetPromptResult> {
    const found = await this.resolve(state, params.name);
    if (!found) throw unknownPrompt(params.name);
    try {
      return await this.gateway.run(state, found.target.server, extra, () =>
        found.client.getPrompt({ name: found.local, arguments: params.arguments }, { timeout: this.gateway.timeoutMs, signal: extra.signal }));
    } catch (error) {
      throw toWireError(error, found.target.server);
    }
  }

  async complete(state: ProxySessionState, params: CompleteRequest['params'], extra: HandlerExtra): Promise<CompleteResult> {
    const { ref } = params;
    let server: string;
    let client: Client;
    let upstreamRef: CompleteRequest['params']['ref'];
    if (ref.type === 'ref/prompt') {
      const found = await this.resolve(state, ref.name);
      if (!found) throw unknownPrompt(ref.name);
      ({ client } = found);
      server = found.target.server;
      upstreamRef = { ...ref, name: found.local };
    } else {
      const owner = state.templates.get(ref.uri)?.server ?? state.serverOf(ref.uri);
      const target = this.gateway.reachable(state).find((s) => s.server === owner);
      const connected = target && (await this.gateway.clientOf(target));
      if (!target || !connected) throw unknownResource(ref.uri);
      [server, client, upstreamRef] = [target.server, connected, ref];
    }
    if (!client.getServerCapabilities()?.completions) return { completion: { values: [], hasMore: false } };
    try {
      return await this.gateway.run(state, server, extra, () =>
        client.complete({ ...params, ref: upstreamRef }, { timeout: this.gateway.timeoutMs, signal: extra.signal }));
    } catch (error) {
      throw toWireError(error, server);
    }
  }

  /** The reachable server that has this prompt, checked against its current list (not a stale map). */
  private async resolve(state: ProxySessionState, name: string): Promise<PromptTarget | undefined> {
    for (const { target, local } of candidatesFor(this.gateway.reachable(state), name)) {
      const client = await this.gateway.clientOf(target);
      if (!client?.getServerCapabilities()?.prompts) continue;
      const prompts = await this.upstreamPrompts(client).catch(() => [] as Prompt[]);
      if (prompts.some((p) => p.name === local)) return { target, client, local };
    }
    return undefined;
  }

  private upstreamPrompts(client: Client): Promise<Prompt[]> {
    return this.gateway.allPages(async (cursor) => {
      const page = await client.listPrompts(cursor ? { cursor } : undefined, { timeout: this.gateway.timeoutMs });
      return { items: page.prompts, nextCursor: page.nextCursor };
    });
  }
}
