import { sessionRevision } from './session-revision.shaper';

const CAPABILITIES = { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {}, logging: {} };

const TOOL = {
  name: 'bank.lookup',
  title: 'Look up a payment',
  description: 'Returns a payment.',
  inputSchema: { type: 'object' },
  outputSchema: { type: 'object' },
  annotations: { title: 'Look up a payment', readOnlyHint: true },
};

const PAYMENT = { reference: 'PMT-1', amount: 100 };

describe('sessionRevision — what each session revision is sent', () => {
  it('sends the newest revision everything as built: the very same objects', () => {
    const revision = sessionRevision('2025-11-25');
    const result = { content: [], structuredContent: PAYMENT };
    const elicitation = { mode: 'form', message: 'Confirm?', requestedSchema: { type: 'object', properties: {} } };
    expect(revision.current).toBe(true);
    expect(revision.serverCapabilities(CAPABILITIES)).toBe(CAPABILITIES);
    expect(revision.tool(TOOL)).toBe(TOOL);
    expect(revision.callResult(result)).toBe(result);
    expect(revision.elicitation(elicitation)).toBe(elicitation);
  });

  it('reads a version it does not speak as the newest, as initialize answers it', () => {
    expect(sessionRevision(undefined).version).toBe('2025-11-25');
    expect(sessionRevision('2099-01-01').version).toBe('2025-11-25');
  });

  it.each([
    ['2024-11-05', ['tools', 'resources', 'prompts', 'logging']],
    ['2025-03-26', ['tools', 'resources', 'prompts', 'completions', 'logging']],
    ['2025-06-18', ['tools', 'resources', 'prompts', 'completions', 'logging']],
  ])('offers %s only the capabilities its schema has', (version, keys) => {
    expect(Object.keys(sessionRevision(version).serverCapabilities({ ...CAPABILITIES, tasks: {} }))).toEqual(keys);
  });

  it.each([
    ['2024-11-05', { name: TOOL.name, description: TOOL.description, inputSchema: TOOL.inputSchema }],
    ['2025-03-26', { name: TOOL.name, description: TOOL.description, inputSchema: TOOL.inputSchema, annotations: TOOL.annotations }],
    ['2025-06-18', TOOL],
  ])('lists a tool to %s with only the fields its Tool has', (version, expected) => {
    expect(sessionRevision(version).tool({ ...TOOL, icons: [], execution: {} })).toEqual(expected);
  });

  it.each(['2024-11-05', '2025-03-26'])('takes structuredContent out for %s and keeps the text that already carries it', (version) => {
    const pretty = { content: [{ type: 'text', text: JSON.stringify(PAYMENT, null, 2) }], structuredContent: PAYMENT, _meta: { k: 1 } };
    expect(sessionRevision(version).callResult(pretty)).toEqual({ content: pretty.content, _meta: { k: 1 } });
  });

  it.each(['2024-11-05', '2025-03-26'])('adds the structured content as JSON text for %s when no text block carries it', (version) => {
    const result = { content: [{ type: 'text', text: 'Payment found.' }], structuredContent: PAYMENT };
    expect(sessionRevision(version).callResult(result)).toEqual({ content: [{ type: 'text', text: 'Payment found.' }, { type: 'text', text: JSON.stringify(PAYMENT) }] });
    expect(sessionRevision(version).callResult({ structuredContent: PAYMENT })).toEqual({ content: [{ type: 'text', text: JSON.stringify(PAYMENT) }] });
  });

  it('leaves a result without structured content untouched on older revisions', () => {
    const result = { isError: true, content: [{ type: 'text', text: 'no' }] };
    expect(sessionRevision('2024-11-05').callResult(result)).toBe(result);
  });

  it.each(['2024-11-05', '2025-03-26'])('has no elicitation/create on %s', (version) => {
    expect(sessionRevision(version).hasRequest('elicitation/create')).toBe(false);
    expect(sessionRevision(version).elicitation({ message: 'Confirm?', requestedSchema: { type: 'object', properties: {} } })).toBeUndefined();
  });

  it('asks 2025-06-18 without mode, and cannot send it to a URL', () => {
    const revision = sessionRevision('2025-06-18');
    const form = { mode: 'form', message: 'Confirm?', requestedSchema: { type: 'object', properties: {} } };
    expect(revision.hasRequest('elicitation/create')).toBe(true);
    expect(revision.elicitation(form)).toEqual({ message: 'Confirm?', requestedSchema: { type: 'object', properties: {} } });
    expect(revision.elicitation({ mode: 'url', message: 'Sign in', url: 'https://example.com', elicitationId: 'e1' })).toBeUndefined();
  });
});
