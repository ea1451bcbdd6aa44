import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CompleteRequest, CompleteResult, GetPromptResult, ListPromptsResult, Prompt } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@estate/platform';
import { WireError } from '../mcp/wire-error';
import { candidatesFor, qualify, type ReachableServer } from './upstream-access';
import { stripEstateMeta, type UpstreamText } from '../upstream/upstream-answer.guard';
import { withheld, type UpstreamGateway } from './upstream.gateway';
import type { ProxyCaller } from './proxy.caller';
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

  async list(caller: ProxyCaller): Promise<ListPromptsResult> {
    const prompts: Prompt[] = [];
    const seen = new Set<string>();
    for (const { target, client } of await this.gateway.withCapability(caller, 'prompts')) {
      try {
        for (const prompt of await this.upstreamPrompts(client)) {
          const name = qualify(target.namespace, prompt.name);
          if (seen.has(name)) continue;
          seen.add(name);
          const clean = this.checkedPrompt(target.server, prompt);
          if (clean) prompts.push({ ...clean, name });
        }
      } catch (error) {
        this.logger.warn({ server: target.server, err: error }, 'could not list upstream prompts');
      }
    }
    return { prompts };
  }

  async get(caller: ProxyCaller, params: { name: string; arguments?: Record<string, string> }): Promise<GetPromptResult> {
    const found = await this.resolve(caller, params.name);
    if (!found) throw unknownPrompt(params.name);
    let answer: GetPromptResult;
    try {
      answer = await this.gateway.run(caller, found.target.server, () =>
        found.client.getPrompt({ name: found.local, arguments: params.arguments }, { timeout: this.gateway.timeoutMs, signal: caller.signal }));
    } catch (error) {
      throw this.gateway.failure(error, found.target.server, 'prompts/get');
    }
    return this.checkedMessages(found.target.server, stripEstateMeta(answer));
  }

  /** A listed prompt with its texts checked; undefined when the text action refuses it. */
  private checkedPrompt(server: string, prompt: Prompt): Prompt | undefined {
    const texts = [
      { path: '$.name', text: prompt.name }, { path: '$.description', text: prompt.description ?? '' }, { path: '$.title', text: prompt.title ?? '' },
      ...(prompt.arguments ?? []).flatMap((a, i) => [
        { path: `$.arguments[${i}].name`, text: a.name }, { path: `$.arguments[${i}].description`, text: a.description ?? '' },
        { path: `$.arguments[${i}].title`, text: (a as { title?: string }).title ?? '' },
      ]),
    ];
    const hide = this.gateway.checkListed(server, 'prompts/list', texts);
    // A name cannot be withheld and still be called: a prompt whose name or an argument's name is refused is left out.
    if (hide === 'drop' || [...hide].some((path) => /(^\$|\])\.name$/.test(path))) return undefined;
    const clean = stripEstateMeta(prompt);
    if (clean.description !== undefined) clean.description = withheld(hide, '$.description', clean.description);
    if (clean.title !== undefined) clean.title = withheld(hide, '$.title', clean.title);
    if (clean.arguments) {
      clean.arguments = clean.arguments.map((a, i) => {
        const title = (a as { title?: string }).title;
        return {
          ...a,
          ...(a.description === undefined ? {} : { description: withheld(hide, `$.arguments[${i}].description`, a.description) }),
          ...(title === undefined ? {} : { title: withheld(hide, `$.arguments[${i}].title`, title) }),
        };
      });
    }
    return clean;
  }

  /** A prompt's messages are text a model reads as its own: the same rules as descriptions. */
  private checkedMessages(server: string, answer: GetPromptResult): GetPromptResult {
    const textOf = (content: GetPromptResult['messages'][number]['content']): string | undefined => {
      if (content.type === 'text') return content.text;
      if (content.type === 'resource' && 'text' in content.resource && typeof content.resource.text === 'string') return content.resource.text;
      return undefined;
    };
    // A resource link is read too: its name, title and description sit in the conversation like text.
    const linkTexts = (content: GetPromptResult['messages'][number]['content'], path: string): UpstreamText[] => {
      if (content.type !== 'resource_link') return [];
      const link = content as { name?: unknown; title?: unknown; description?: unknown };
      return (['name', 'title', 'description'] as const).flatMap((key) => (typeof link[key] === 'string' ? [{ path: `${path}.${key}`, text: link[key] as string }] : []));
    };
    const texts = [{ path: '$.description', text: answer.description ?? '' }, ...answer.messages.flatMap((m, i) => {
      const text = textOf(m.content);
      return [...(text === undefined ? [] : [{ path: `$.messages[${i}].content`, text }]), ...linkTexts(m.content, `$.messages[${i}].content`)];
    })];
    const hide = this.gateway.checkTexts(server, 'prompts/get', texts);
    if (hide.size === 0) return answer;
    const hidden = (i: number) => [...hide].some((path) => path === `$.messages[${i}].content` || path.startsWith(`$.messages[${i}].content.`));
    return {
      ...answer,
      ...(answer.description !== undefined ? { description: withheld(hide, '$.description', answer.description) } : {}),
      messages: answer.messages.map((m, i) => {
        if (!hidden(i)) return m;
        if (m.content.type === 'text' && hide.has(`$.messages[${i}].content`)) return { ...m, content: { ...m.content, text: withheld(hide, `$.messages[${i}].content`, m.content.text) } };
        return { ...m, content: { type: 'text' as const, text: withheld(hide, `$.messages[${i}].content`, '') } };
      }),
    };
  }

  async complete(caller: ProxyCaller, params: CompleteRequest['params']): Promise<CompleteResult> {
    const { ref } = params;
    let server: string;
    let client: Client;
    let upstreamRef: CompleteRequest['params']['ref'];
    if (ref.type === 'ref/prompt') {
      const found = await this.resolve(caller, ref.name);
      if (!found) throw unknownPrompt(ref.name);
      ({ client } = found);
      server = found.target.server;
      upstreamRef = { ...ref, name: found.local };
    } else {
      const owner = caller.attribution.templates.get(ref.uri)?.server ?? caller.attribution.serverOf(ref.uri);
      const target = this.gateway.reachable(caller).find((s) => s.server === owner);
      const connected = target && (await this.gateway.clientOf(target));
      if (!target || !connected) throw unknownResource(ref.uri);
      [server, client, upstreamRef] = [target.server, connected, ref];
    }
    if (!client.getServerCapabilities()?.completions) return { completion: { values: [], hasMore: false } };
    let answer: CompleteResult;
    try {
      answer = await this.gateway.run(caller, server, () =>
        client.complete({ ...params, ref: upstreamRef }, { timeout: this.gateway.timeoutMs, signal: caller.signal }));
    } catch (error) {
      throw this.gateway.failure(error, server, 'completion/complete');
    }
    return this.checkedCompletion(server, stripEstateMeta(answer));
  }

  /** Completion values become the agent's own input: the same rules as prompt text. Under `strip` an offending value is left out, not replaced (a placeholder is no completion). */
  private checkedCompletion(server: string, answer: CompleteResult): CompleteResult {
    const { values } = answer.completion;
    const hide = this.gateway.checkTexts(server, 'completion/complete', values.map((text, i) => ({ path: `$.completion.values[${i}]`, text })));
    if (hide.size === 0) return answer;
    const kept = values.filter((_, i) => !hide.has(`$.completion.values[${i}]`));
    const total = answer.completion.total === undefined ? {} : { total: answer.completion.total - (values.length - kept.length) };
    return { ...answer, completion: { ...answer.completion, ...total, values: kept } };
  }

  /** The reachable server that has this prompt, checked against its current list (not a stale map). */
  private async resolve(caller: ProxyCaller, name: string): Promise<PromptTarget | undefined> {
    for (const { target, local } of candidatesFor(this.gateway.reachable(caller), name)) {
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
