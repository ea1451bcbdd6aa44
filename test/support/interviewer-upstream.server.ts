import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CreateMessageResultSchema, ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ToolSpec } from '@estate/contracts';
import { z } from 'zod';

/*
 * A session-based upstream whose one tool asks twice during a call: first the user (elicitation),
 * then the model (sampling) with what the user said. It shows a relay that holds more than one
 * round. Serve it with startNotesServer({ create: createInterviewerServer }).
 */

const INPUT = { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'], additionalProperties: false };

export function createInterviewerServer(): McpServer {
  const server = new McpServer({ name: 'interviewer', version: '1.0.0' });
  server.registerTool('interview', { description: 'Asks the user for a name, then the model for a line about the topic.', inputSchema: { topic: z.string() } }, async ({ topic }, extra) => {
    const requestedSchema = { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] };
    const who = await extra.sendRequest({ method: 'elicitation/create', params: { message: `Who is asking about ${topic}?`, requestedSchema } }, ElicitResultSchema);
    if (who.action !== 'accept') return { content: [{ type: 'text', text: `no interview (${who.action})` }] };
    const name = String(who.content?.['name']);
    const messages = [{ role: 'user' as const, content: { type: 'text' as const, text: `One line for ${name} about ${topic}.` } }];
    const line = await extra.sendRequest({ method: 'sampling/createMessage', params: { messages, maxTokens: 32 } }, CreateMessageResultSchema);
    return { content: [{ type: 'text', text: `${name} asked about ${topic}; the model said: ${line.content.type === 'text' ? line.content.text : '?'}` }] };
  });
  return server;
}

/** The interviewer's tool as the estate publishes it. */
export function interviewerSpecs(server: string, scope: string): ToolSpec[] {
  return [{
    name: `${server}.interview`, version: '1.0.0', description: 'Asks the user for a name, then the model for a line about the topic.', inputSchema: INPUT,
    sideEffect: 'read', requiredScopes: [scope], dataClassification: 'internal', tenants: [], owner: 'interview-team', upstream: { server, tool: 'interview' },
  }];
}
