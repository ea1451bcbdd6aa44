import type { ToolSpec } from '@estate/contracts';

const TOOLS: Array<{ tool: string; description: string; inputSchema: Record<string, unknown> }> = [
  {
    tool: 'count',
    description: 'Counts to a number, reporting progress and logging each step.',
    inputSchema: { type: 'object', properties: { to: { type: 'integer', minimum: 1, maximum: 20 } }, required: ['to'], additionalProperties: false },
  },
  {
    tool: 'ask-model',
    description: "Asks the client's model a question and returns the answer.",
    inputSchema: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'], additionalProperties: false },
  },
  {
    tool: 'ask-user',
    description: 'Asks the user for a title and returns it.',
    inputSchema: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'], additionalProperties: false },
  },
  {
    tool: 'shout',
    description: 'Logs one info and one warning message.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  },
  {
    tool: 'touch',
    description: 'Marks a note as changed.',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
  },
];

/** The notes tools as the estate publishes them; `namespace` '' keeps bare names (admin registration). */
export function notesSpecs(server: string, namespace = server, scope = 'notes:read'): ToolSpec[] {
  return TOOLS.map(({ tool, description, inputSchema }) => ({
    name: namespace === '' ? tool : `${namespace}.${tool}`,
    version: '1.0.0',
    description,
    inputSchema,
    sideEffect: 'read',
    requiredScopes: [scope],
    dataClassification: 'internal',
    tenants: [],
    owner: 'notes-team',
    upstream: { server, tool },
  }));
}
