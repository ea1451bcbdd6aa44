import fc from 'fast-check';

/** One hostile HTTP exchange: what the fuzzer sends to the edge. */
export interface FuzzCase {
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

/** What the case generator may address: live sessions and tokens of the fuzzing principal. */
export interface FuzzTargets {
  sessions: string[];
  /** The only sessions of the fuzzing principal a DELETE may end, so the others stay fuzzable. */
  deletable: string[];
  /** Sessions of someone else: presenting them must look exactly like an unknown id. */
  foreignSessions: string[];
  bearer: string;
  forgedBearer: string;
}

const METHODS = ['initialize', 'ping', 'tools/list', 'tools/call', 'notifications/initialized', 'notifications/cancelled',
  'resources/list', 'prompts/get', 'logging/setLevel', 'completion/complete', 'tasks/get', 'sampling/createMessage', 'rpc.discover'];
const VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07', '2026-07-28'];

const ascii = (maxLength: number) => fc.string({ unit: 'grapheme-ascii', maxLength });
const nested = (depth: number, open: string, close: string) => open.repeat(depth) + close.repeat(depth);

/** Any JSON value, with MCP's favourite shapes mixed in. */
const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(null, true, 1.5, -0, 2 ** 53 + 1, '', [], {}));

const toolCallParams = fc.record(
  { name: fc.oneof(fc.constantFrom('bank.lookup', 'bank.transfer', 'nope', ''), anyValue), arguments: fc.oneof(anyValue, fc.record({ reference: anyValue })), _meta: anyValue },
  { requiredKeys: [] },
);

/** A JSON-RPC-looking object where every member may be missing, wrong-typed, or right. */
const message = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), anyValue),
    id: fc.oneof(fc.integer(), ascii(12), anyValue),
    method: fc.oneof(fc.constantFrom(...METHODS), ascii(30), anyValue),
    params: fc.oneof(toolCallParams, fc.record({ protocolVersion: fc.oneof(fc.constantFrom(...VERSIONS), anyValue), capabilities: anyValue, clientInfo: anyValue }, { requiredKeys: [] }), anyValue),
    result: anyValue,
    error: anyValue,
  },
  { requiredKeys: [] },
);

const body: fc.Arbitrary<string | Buffer> = fc.oneof(
  { weight: 6, arbitrary: message.map((m) => JSON.stringify(m)) },
  { weight: 2, arbitrary: fc.array(message, { maxLength: 5 }).map((batch) => JSON.stringify(batch)) },
  { weight: 2, arbitrary: fc.json({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 20000 }).chain((depth) => fc.constantFrom(nested(depth, '[', ']'), nested(depth, '{"a":', '}').replace(/:}/, ':1}'))) },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 90000 }).map((n) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'bank.lookup', arguments: { reference: 'x'.repeat(n) } } })) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
);

function pick<T>(values: T[]): fc.Arbitrary<T | undefined> {
  return values.length > 0 ? fc.constantFrom(...values) : fc.constant(undefined);
}

/** Headers: mostly plausible, each sometimes absent, hostile or random. */
function headers(targets: FuzzTargets): fc.Arbitrary<Record<string, string | undefined>> {
  return fc.record({
    authorization: fc.oneof({ weight: 40, arbitrary: fc.constant(`Bearer ${targets.bearer}`) }, fc.constant(`Bearer ${targets.forgedBearer}`), fc.constant(undefined), ascii(40)),
    'content-type': fc.oneof({ weight: 40, arbitrary: fc.constant('application/json') }, fc.constantFrom('text/plain', 'application/json; charset=utf-8', 'application/jsonx', 'multipart/form-data'), ascii(20)),
    accept: fc.oneof({ weight: 40, arbitrary: fc.constant('application/json, text/event-stream') }, fc.constantFrom('text/event-stream', 'application/json', '*/*'), fc.constant(undefined)),
    'mcp-session-id': fc.oneof({ weight: 16, arbitrary: pick(targets.sessions) }, pick(targets.foreignSessions), { weight: 2, arbitrary: fc.constant(undefined) }, ascii(40), fc.uuid()),
    'mcp-protocol-version': fc.oneof({ weight: 12, arbitrary: fc.constant(undefined) }, fc.constantFrom(...VERSIONS), ascii(12)),
    origin: fc.oneof({ weight: 40, arbitrary: fc.constant(undefined) }, fc.constant('https://app.example'), fc.webUrl(), ascii(20)),
    'last-event-id': fc.oneof({ weight: 12, arbitrary: fc.constant(undefined) }, ascii(30)),
    'x-padding': fc.oneof({ weight: 30, arbitrary: fc.constant(undefined) }, fc.constant('p'.repeat(20000))),
  });
}

export function fuzzCases(targets: FuzzTargets): fc.Arbitrary<FuzzCase> {
  // DELETE is rare so the live sessions survive long enough to be fuzzed from the inside.
  const method = fc.oneof({ weight: 60, arbitrary: fc.constant('POST') }, { weight: 4, arbitrary: fc.constantFrom('GET', 'PUT', 'PATCH', 'OPTIONS') }, fc.constant('DELETE'));
  return fc.record({ method, headers: headers(targets), body, spare: pick(targets.deletable) }).map(({ method: verb, headers: raw, body: payload, spare }) => {
    const sessionId = verb === 'DELETE' && targets.sessions.includes(raw['mcp-session-id'] ?? '') ? spare : raw['mcp-session-id'];
    return {
      method: verb,
      headers: Object.fromEntries(Object.entries({ ...raw, 'mcp-session-id': sessionId }).filter((entry): entry is [string, string] => entry[1] !== undefined)),
      body: verb === 'GET' || verb === 'DELETE' ? undefined : payload,
    };
  });
}
