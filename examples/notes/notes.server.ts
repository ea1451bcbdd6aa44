/**
 * "notes": a sample upstream that exercises everything the edge proxies besides plain tools —
 * resources and a resource template, a prompt with completions, logging, progress, sampling and
 * elicitation. Tools:
 *   count      {to: 1..20}      reports progress and logs each step, then answers "counted to N"
 *   ask-model  {question}       asks the client's model (sampling) and returns its text
 *   ask-user   {question}       asks the user for a title (elicitation) and returns the answer
 *   shout      {}               logs one info and one warning message
 *   touch      {id}             tells subscribers that notes://<name>/<id> changed
 * Resources: notes://<name>/welcome and the template notes://<name>/{id} (ids complete).
 * Served over Streamable HTTP by notes.http.ts (tests, local runs).
 */
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import {
  CreateMessageResultSchema, ElicitResultSchema, SubscribeRequestSchema, UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

export const NOTE_IDS = ['groceries', 'meeting', 'memo'] as const;
const TOPICS = ['budget', 'backlog', 'hiring', 'holidays'];

/** An error the SDK puts on the wire with this code (the SDK reads `code` from whatever is thrown). */
function rpcError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

function registerTools(server: McpServer, name: string): void {
  server.registerTool('count', {
    description: 'Counts to a number, reporting progress and logging each step.',
    inputSchema: { to: z.number().int().min(1).max(20) },
  }, async ({ to }, extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= to; i += 1) {
      // Tied to the request, so a gateway can tell whose call the line is about.
      await extra.sendNotification({ method: 'notifications/message', params: { level: 'debug', logger: 'notes', data: `step ${i} of ${to}` } });
      if (token !== undefined) {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: to, message: `step ${i}` } });
      }
    }
    return text(`counted to ${to}`);
  });
  server.registerTool('ask-model', {
    description: "Asks the client's model a question (sampling) and returns the answer.",
    inputSchema: { question: z.string() },
  }, async ({ question }, extra) => {
    try {
      const params = { messages: [{ role: 'user' as const, content: { type: 'text' as const, text: question } }], maxTokens: 64 };
      const answer = await extra.sendRequest({ method: 'sampling/createMessage', params }, CreateMessageResultSchema);
      return text(answer.content.type === 'text' ? `model said: ${answer.content.text}` : 'model answered without text');
    } catch (error) {
      return { ...text(`sampling failed: ${(error as Error).message}`), isError: true };
    }
  });
  server.registerTool('ask-user', {
    description: 'Asks the user for a title (elicitation) and returns it.',
    inputSchema: { question: z.string() },
  }, async ({ question }, extra) => {
    try {
      const requestedSchema = { type: 'object' as const, properties: { title: { type: 'string' as const } }, required: ['title'] };
      const answer = await extra.sendRequest({ method: 'elicitation/create', params: { message: question, requestedSchema } }, ElicitResultSchema);
      return text(answer.action === 'accept' ? `user said: ${String(answer.content?.title)}` : `user chose ${answer.action}`);
    } catch (error) {
      return { ...text(`elicitation failed: ${(error as Error).message}`), isError: true };
    }
  });
  server.registerTool('shout', { description: 'Logs one info and one warning message.', inputSchema: {} }, async (_args, extra) => {
    await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', logger: 'notes', data: 'an info message' } });
    await extra.sendNotification({ method: 'notifications/message', params: { level: 'warning', logger: 'notes', data: 'a warning message' } });
    return text('shouted');
  });
  server.registerTool('touch', { description: 'Marks a note as changed.', inputSchema: { id: z.string() } }, async ({ id }) => {
    await server.server.sendResourceUpdated({ uri: `notes://${name}/${id}` });
    return text(`touched ${id}`);
  });
}

/** Subscriptions are accepted for any URI; `touch` is what sends the updates. */
function acceptSubscriptions(server: McpServer): void {
  server.server.registerCapabilities({ resources: { subscribe: true } });
  server.server.setRequestHandler(SubscribeRequestSchema, async () => ({}));
  server.server.setRequestHandler(UnsubscribeRequestSchema, async () => ({}));
}

function registerResources(server: McpServer, name: string): void {
  server.registerResource('welcome', `notes://${name}/welcome`, { title: 'Welcome', mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Welcome to the notes server.' }],
  }));
  const template = new ResourceTemplate(`notes://${name}/{id}`, {
    list: undefined,
    complete: { id: (value) => NOTE_IDS.filter((id) => id.startsWith(value)) },
  });
  server.registerResource('note', template, { title: 'A note by id', mimeType: 'text/plain' }, async (uri, { id }) => {
    if (!(NOTE_IDS as readonly string[]).includes(String(id))) throw rpcError(-32002, `Resource not found: ${uri.href}`);
    return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: `Note ${String(id)}` }] };
  });
}

function registerPrompts(server: McpServer): void {
  server.registerPrompt('summarize', {
    description: 'Asks for a summary of the notes about a topic.',
    argsSchema: { topic: completable(z.string(), (value) => TOPICS.filter((t) => t.startsWith(value))) },
  }, ({ topic }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Summarize the notes about ${topic}.` } }],
  }));
}

/** One McpServer with everything above. Create one per session. */
export function createNotesMcpServer(name = 'notes'): McpServer {
  const server = new McpServer({ name, version: '1.0.0' }, { capabilities: { logging: {} } });
  registerTools(server, name);
  registerResources(server, name);
  acceptSubscriptions(server);
  registerPrompts(server);
  return server;
}
