import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CreateMessageResultSchema, ElicitResultSchema, ListRootsResultSchema,
  type CallToolResult, type ServerNotification, type ServerRequest, type ClientRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { ClientNotification } from '@modelcontextprotocol/sdk/types.js';

type Extra = RequestHandlerExtra<ClientRequest | ServerRequest, ClientNotification | ServerNotification>;
type ToolHandler = (args: Record<string, unknown>, extra: Extra) => Promise<CallToolResult>;

/** A 1×1 PNG and a 44-byte WAV header: the smallest valid media the suite accepts. */
export const PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
export const SILENT_WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

async function logThrice(_args: Record<string, unknown>, extra: Extra): Promise<CallToolResult> {
  for (const step of ['started', 'halfway', 'finished']) {
    await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', logger: 'conformance-fixture', data: `logging tool ${step}` } });
    await pause(20);
  }
  return text('logging tool done');
}

async function reportProgress(_args: Record<string, unknown>, extra: Extra): Promise<CallToolResult> {
  const token = extra._meta?.progressToken;
  for (const progress of [0, 50, 100]) {
    if (token !== undefined) {
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100, message: `${progress} of 100` } });
    }
    await pause(20);
  }
  return text(`progress reported for token ${String(token)}`);
}

async function sample(args: Record<string, unknown>, extra: Extra): Promise<CallToolResult> {
  const reply = await extra.sendRequest(
    { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: String(args.prompt) } }], maxTokens: 100 } },
    CreateMessageResultSchema,
  );
  const content = reply.content as { type: string; text?: string };
  return text(`LLM response: ${content.type === 'text' ? content.text : `[${content.type}]`}`);
}

async function elicit(message: string, requestedSchema: Record<string, unknown>, extra: Extra): Promise<CallToolResult> {
  const reply = await extra.sendRequest({ method: 'elicitation/create', params: { mode: 'form', message, requestedSchema } } as ServerRequest, ElicitResultSchema);
  return text(`User response: action=${reply.action}, content=${JSON.stringify(reply.content ?? {})}`);
}

const OK_FORM = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
const NAME_FORM = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const COLOR_FORM = { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] };

const CONTACT_FORM = {
  type: 'object',
  properties: { username: { type: 'string', description: 'Your user name' }, email: { type: 'string', description: 'Your email address' } },
  required: ['username', 'email'],
};

const DEFAULTS_FORM = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'Name', default: 'John Doe' },
    age: { type: 'integer', description: 'Age', default: 30 },
    score: { type: 'number', description: 'Score', default: 95.5 },
    status: { type: 'string', description: 'Status', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', description: 'Verified', default: true },
  },
  required: [],
};

const ENUMS_FORM = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    titledSingle: { type: 'string', oneOf: [{ const: 'value1', title: 'First' }, { const: 'value2', title: 'Second' }] },
    legacyEnum: { type: 'string', enum: ['opt1', 'opt2'], enumNames: ['Option one', 'Option two'] },
    untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
    titledMulti: { type: 'array', items: { anyOf: [{ const: 'value1', title: 'First' }, { const: 'value2', title: 'Second' }] } },
  },
  required: [],
};

/** What each fixture tool does when called; names match FIXTURE_TOOLS. */
export const TOOL_HANDLERS: Readonly<Record<string, ToolHandler>> = {
  test_simple_text: async () => text('This is a simple text response for testing.'),
  test_image_content: async () => ({ content: [{ type: 'image', data: PIXEL_PNG, mimeType: 'image/png' }] }),
  test_audio_content: async () => ({ content: [{ type: 'audio', data: SILENT_WAV, mimeType: 'audio/wav' }] }),
  test_embedded_resource: async () => ({
    content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'Embedded resource text.' } }],
  }),
  test_multiple_content_types: async () => ({
    content: [
      { type: 'text', text: 'Three kinds of content follow.' },
      { type: 'image', data: PIXEL_PNG, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"kind":"mixed"}' } },
    ],
  }),
  test_tool_with_logging: logThrice,
  test_tool_with_progress: reportProgress,
  test_error_handling: async () => ({ isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] }),
  test_reconnection: async () => {
    await pause(100);
    return text('Reconnection test completed.');
  },
  test_sampling: sample,
  test_elicitation: (args, extra) => elicit(String(args.message), CONTACT_FORM, extra),
  test_elicitation_sep1034_defaults: (_args, extra) => elicit('Please confirm or change the defaults', DEFAULTS_FORM, extra),
  test_elicitation_sep1330_enums: (_args, extra) => elicit('Please choose from the enums', ENUMS_FORM, extra),
  json_schema_2020_12_tool: async (args) => text(`Received ${JSON.stringify(args)}`),
  test_logging_tool: logThrice,
  test_missing_capability: (_args, extra) => sample({ prompt: 'Say yes.' }, extra),
  test_streaming_elicitation: (_args, extra) => elicit('Who are you?', CONTACT_FORM, extra),
  test_header_mirrored: async (args) => text(`Region: ${String(args.region)}`),
  test_input_required_result_elicitation: (_args, extra) => elicit('What is your name?', { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, extra),
  // The edge relays these tools' mid-call requests to a 2026-07-28 client as input_required results.
  test_input_required_result_request_state: (_args, extra) => elicit('May I go on?', OK_FORM, extra),
  test_input_required_result_tampered_state: (_args, extra) => elicit('May I go on?', OK_FORM, extra),
  test_input_required_result_capabilities: (_args, extra) => sample({ prompt: 'Say yes.' }, extra),
  test_input_required_result_multi_round: async (_args, extra) => {
    const name = await extra.sendRequest({ method: 'elicitation/create', params: { mode: 'form', message: 'What is your name?', requestedSchema: NAME_FORM } } as ServerRequest, ElicitResultSchema);
    const color = await extra.sendRequest({ method: 'elicitation/create', params: { mode: 'form', message: 'Which colour?', requestedSchema: COLOR_FORM } } as ServerRequest, ElicitResultSchema);
    return text(`name=${JSON.stringify(name.content?.['name'])}, colour=${JSON.stringify(color.content?.['color'])}`);
  },
  test_input_required_result_sampling: (_args, extra) => sample({ prompt: 'What is the capital of France?' }, extra),
  // The list itself stays as it is: other scenarios list the prompts and expect the fixture's own.
  test_trigger_prompt_change: async (_args, extra) => {
    await extra.sendNotification({ method: 'notifications/prompts/list_changed' });
    return text('prompt list change announced');
  },
  test_input_required_result_list_roots: async (_args, extra) => {
    const reply = await extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema);
    return text(`Roots: ${reply.roots.map((root) => root.uri).join(', ')}`);
  },
};
