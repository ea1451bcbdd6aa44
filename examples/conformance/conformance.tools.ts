import type { ToolSpec } from '@estate/contracts';

/**
 * The tools the official conformance suite (@modelcontextprotocol/conformance, server mode)
 * calls by bare name, with the contract the estate publishes for each. The suite checks the
 * shape of what comes back, so the payloads below are small but complete.
 */
export interface FixtureTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

const NO_ARGUMENTS = { type: 'object', properties: {}, additionalProperties: false };

const stringArgument = (name: string, description: string) => ({
  type: 'object',
  properties: { [name]: { type: 'string', description } },
  required: [name],
  additionalProperties: false,
});

/**
 * SEP-1613 and SEP-2106: a raw 2020-12 schema whose `$schema`, `$defs` (with an `$anchor`),
 * composition (`allOf`/`anyOf`), conditionals (`if`/`then`/`else`) and `additionalProperties`
 * must all survive publishing and listing.
 */
export const SCHEMA_2020_12_INPUT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

/** SEP-2243: a string argument the client mirrors into an `Mcp-Param-Region` header, which the edge checks against the body. */
const HEADER_MIRRORED_INPUT = {
  type: 'object',
  properties: { region: { type: 'string', description: 'Where to run', 'x-mcp-header': 'Region' } },
  required: ['region'],
};

export const FIXTURE_TOOLS: readonly FixtureTool[] = [
  { name: 'test_simple_text', description: 'Answers with one text block.', inputSchema: NO_ARGUMENTS },
  { name: 'test_image_content', description: 'Answers with a one-pixel PNG image block.', inputSchema: NO_ARGUMENTS },
  { name: 'test_audio_content', description: 'Answers with a tiny WAV audio block.', inputSchema: NO_ARGUMENTS },
  { name: 'test_embedded_resource', description: 'Answers with an embedded text resource.', inputSchema: NO_ARGUMENTS },
  { name: 'test_multiple_content_types', description: 'Answers with text, an image and an embedded JSON resource.', inputSchema: NO_ARGUMENTS },
  { name: 'test_tool_with_logging', description: 'Sends three log notifications while it runs.', inputSchema: NO_ARGUMENTS },
  { name: 'test_tool_with_progress', description: 'Reports progress 0, 50 and 100 out of 100 when the caller asks for progress.', inputSchema: NO_ARGUMENTS },
  { name: 'test_error_handling', description: 'Always fails with a tool execution error.', inputSchema: NO_ARGUMENTS },
  { name: 'test_reconnection', description: 'Answers after a short pause; used for SSE polling checks.', inputSchema: NO_ARGUMENTS },
  { name: 'test_sampling', description: 'Asks the client for an LLM completion of the given prompt.', inputSchema: stringArgument('prompt', 'Text sent to the model') },
  { name: 'test_elicitation', description: 'Asks the user for a name and an email address.', inputSchema: stringArgument('message', 'Text shown to the user') },
  { name: 'test_elicitation_sep1034_defaults', description: 'Asks the user to confirm a form whose fields carry defaults.', inputSchema: NO_ARGUMENTS },
  { name: 'test_elicitation_sep1330_enums', description: 'Asks the user to pick from titled, untitled and multi-select enums.', inputSchema: NO_ARGUMENTS },
  { name: 'json_schema_2020_12_tool', description: 'Echoes a name and an address; its input schema uses 2020-12 keywords.', inputSchema: SCHEMA_2020_12_INPUT },
  // The 2026-07-28 scenarios' diagnostic tools (suite-2026-version), beside the session ones above.
  { name: 'test_logging_tool', description: 'Sends three log notifications while it runs (2026: only when the request sets a log level).', inputSchema: NO_ARGUMENTS },
  { name: 'test_missing_capability', description: 'Needs sampling: asks the client for an LLM completion before answering.', inputSchema: NO_ARGUMENTS },
  { name: 'test_streaming_elicitation', description: 'Asks the user for a name and an email address mid-call.', inputSchema: NO_ARGUMENTS },
  { name: 'test_header_mirrored', description: 'Echoes its region, which clients also send as the Mcp-Param-Region header.', inputSchema: HEADER_MIRRORED_INPUT },
  { name: 'test_input_required_result_elicitation', description: 'Asks the user for a name before answering.', inputSchema: NO_ARGUMENTS },
  { name: 'test_input_required_result_sampling', description: 'Asks the client for an LLM completion before answering.', inputSchema: NO_ARGUMENTS },
  { name: 'test_input_required_result_list_roots', description: 'Asks the client for its roots before answering.', inputSchema: NO_ARGUMENTS },
  { name: 'test_input_required_result_request_state', description: 'Asks the user whether to go on before answering.', inputSchema: NO_ARGUMENTS },
  { name: 'test_input_required_result_tampered_state', description: 'Asks the user whether to go on before answering.', inputSchema: NO_ARGUMENTS },
  { name: 'test_input_required_result_capabilities', description: 'Asks the client for an LLM completion (sampling only) before answering.', inputSchema: NO_ARGUMENTS },
  { name: 'test_input_required_result_multi_round', description: 'Asks the user for a name, then for a colour, before answering.', inputSchema: NO_ARGUMENTS },
  { name: 'test_trigger_prompt_change', description: 'Announces that the prompt list changed.', inputSchema: NO_ARGUMENTS },
];

/** Every fixture tool as a ToolSpec for a server registered with an empty namespace (bare names). */
export function conformanceSpecs(server = 'conformance'): ToolSpec[] {
  return FIXTURE_TOOLS.map((tool) => ({
    name: tool.name,
    version: '1.0.0',
    description: tool.description,
    inputSchema: tool.inputSchema,
    sideEffect: 'read',
    requiredScopes: [],
    dataClassification: 'public',
    tenants: [],
    owner: 'conformance-fixture',
    upstream: { server, tool: tool.name },
  }));
}
