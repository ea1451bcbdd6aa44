/**
 * A seeded generator of hostile REST requests: odd bytes in paths, huge or odd query parameters,
 * malformed JSON, wrong types, deep nesting, huge numbers, invalid UTF-8 percent-encodings and
 * random methods. The same seed always yields the same requests, so a failure can be replayed.
 */
export interface FuzzRequest {
  method: string;
  /** Raw request target, sent as is (no normalization by a URL parser). */
  path: string;
  body?: string;
  contentType?: string;
  authorized: boolean;
}

export type Random = () => number;

/** mulberry32: small, fast and good enough to spread cases. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)];

const METHODS = ['GET', 'GET', 'GET', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'];

/** Path templates per service; `{}` is replaced by a hostile segment. */
export const ROUTES: Record<'registry' | 'discovery' | 'audit' | 'edge', readonly string[]> = {
  registry: [
    '/v1/tools', '/v1/tools/{}', '/v1/tools/{}/versions/{}', '/v1/tools/{}/versions/{}/deprecate',
    '/v1/tools/{}/versions/{}/retire', '/v1/tools/{}/versions/{}/quarantine', '/v1/servers', '/v1/servers/{}',
    '/v1/tools/check', '/openapi.json', '/healthz', '/{}',
  ],
  // No /v1/rebuild: each one reads the whole log with a fresh consumer group (seconds on Kafka),
  // and an admin queueing hundreds of them measures the rebuild, not input handling.
  discovery: ['/v1/discover', '/v1/catalog', '/{}', '/v1/{}', '/v1/discover/{}'],
  audit: ['/v1/audit', '/v1/audit/verify', '/v1/audit/dead-letters', '/v1/tools/{}/callers', '/v1/events/stream', '/healthz', '/{}'],
  edge: ['/healthz', '/.well-known/oauth-protected-resource', '/{}', '/mcp/{}'],
};

const SEGMENTS: Array<(random: Random) => string> = [
  () => '%00',
  () => 'bank.lookup',
  () => '1.0.0',
  () => '%ED%A0%80',
  () => '%C0%AF',
  () => '%FF%FE',
  () => '%E0%A4%A',
  () => '%',
  () => '%2e%2e%2f',
  () => '..',
  (random) => 'x'.repeat(Math.floor(random() * 6000)),
  (random) => encodeURIComponent(String.fromCharCode(...Array.from({ length: 8 }, () => 1 + Math.floor(random() * 0xd7ff)))),
  () => '%F0%9F%98%80',
  () => encodeURIComponent('名前.ツール'),
  () => '-1',
  () => '99999999999999999999999',
  () => '%20%09',
  () => '',
];

const QUERY_KEYS = ['tool', 'version', 'principal', 'type', 'from', 'to', 'limit', 'cursor', 'lastEventId', 'x', 'tool[]', 'from[a]'];
const QUERY_VALUES: Array<(random: Random) => string> = [
  () => '0000-01-01',
  () => '10000-01-01',
  () => '2024-02-30',
  () => '2024-13-01T00:00:00Z',
  () => '2024-01-01T25:61:61Z',
  () => '%00',
  () => '-1',
  () => '1e309',
  () => '0',
  () => 'NaN',
  () => '501',
  (random) => 'q'.repeat(Math.floor(random() * 5000)),
  () => 'c2VxOjk5OTk5OTk5OTk5OTk5OTk5OQ',
  () => '%ED%A0%80',
  () => 'bank.lookup',
  (random) => segment(random),
];

function segment(random: Random): string {
  return pick(random, SEGMENTS)(random);
}

function query(random: Random): string {
  const count = Math.floor(random() * 4);
  if (count === 0) return '';
  const parts = Array.from({ length: count }, () => `${pick(random, QUERY_KEYS)}=${pick(random, QUERY_VALUES)(random)}`);
  return `?${parts.join('&')}`;
}

function nested(depth: number, open: string, close: string, inner: string): string {
  return open.repeat(depth) + inner + close.repeat(depth);
}

const BODIES: Array<(random: Random) => string> = [
  () => '{',
  () => '{"name": }',
  () => 'null',
  () => '[]',
  () => '"text"',
  () => '12',
  () => '{"name":"bank.x\\ud800y","version":"1.0.0"}',
  () => '{"name":"a\\u0000b","url":"http://127.0.0.1:1/","owner":"o"}',
  () => '{"reason":"\\u0000","sunsetAt":"0000-01-01"}',
  () => '{"reason":"r","sunsetAt":"+275760-09-13T00:00:00.000Z"}',
  () => '{"reason":"r","sunsetAt":"2024-02-30"}',
  () => '{"principal":{"id":"\\u0000","scopes":["\\ud800"],"clearance":"public"},"pins":{"\\u0000":"^1.0.0"}}',
  () => '{"principal":{"id":1,"scopes":"x","clearance":7}}',
  () => '{"pins":{"bank.lookup":{"$gt":""}}}',
  () => `{"n":1${'0'.repeat(400)}}`,
  () => '{"n":1e999999}',
  (random) => nested(500 + Math.floor(random() * 5000), '[', ']', '1'),
  (random) => nested(200 + Math.floor(random() * 2000), '{"a":', '}', '1'),
  (random) => JSON.stringify({ name: `fz${Math.floor(random() * 1e6)}`, url: 'http://127.0.0.1:1/', owner: 'fuzz' }),
  (random) => JSON.stringify({
    name: `fz.t${Math.floor(random() * 1e6)}`, version: '1.0.0', description: random() < 0.2 ? '' : 'Answers a fuzzing request.',
    inputSchema: { type: 'object' }, sideEffect: 'read', requiredScopes: [], dataClassification: 'public',
    tenants: [], owner: 'o', upstream: { server: 'fz', tool: 't' },
  }),
  (random) => `"${'\\ud800'.repeat(1 + Math.floor(random() * 50))}"`,
  () => '\u00ff\u00fe',
  () => '{"__proto__":{"admin":true},"constructor":{"prototype":{}}}',
];

const ODD_TEXT = ['', ' ', '\u0000', '\ud800', '\udc00x', 'é', '😀', '\u202e', 'x'.repeat(3000), '{}', '<script>'];

/** A write the registry may accept, with one field (sometimes) replaced by odd text: accepted writes become events to audit. */
function plausibleWrite(random: Random, template: string): string {
  const id = Math.floor(random() * 1e9);
  const odd = random() < 0.3 ? pick(random, ODD_TEXT) : undefined;
  if (template === '/v1/servers') {
    return JSON.stringify({ name: `fz${id}`, url: 'http://127.0.0.1:1/', owner: odd ?? 'fuzz-team' });
  }
  return JSON.stringify({
    name: `fz.t${id}`, version: '1.0.0', title: odd ?? 'Fuzz', description: 'Answers a fuzzing request.',
    inputSchema: { type: 'object', properties: { q: { type: 'string', description: odd ?? 'a query' } } },
    sideEffect: 'read', requiredScopes: [], dataClassification: 'public', tenants: [], owner: 'o', upstream: { server: 'fz', tool: 't' },
  });
}

/** One hostile request for one of the services. */
export function nextRequest(random: Random, service: keyof typeof ROUTES): FuzzRequest {
  const template = pick(random, ROUTES[service]);
  const path = template.replace(/\{\}/g, () => segment(random)) + query(random);
  const writes = template === '/v1/servers' || template === '/v1/tools';
  const method = writes && random() < 0.7 ? 'POST' : pick(random, METHODS);
  const withBody = method !== 'GET' && method !== 'HEAD' && random() < 0.9;
  const body = writes && method === 'POST' && random() < 0.6 ? plausibleWrite(random, template) : pick(random, BODIES)(random);
  return {
    method,
    path: path.startsWith('/') ? path : `/${path}`,
    body: withBody ? body : undefined,
    contentType: pick(random, ['application/json', 'application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1']),
    authorized: random() < 0.85,
  };
}
