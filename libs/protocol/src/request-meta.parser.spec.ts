import fc from 'fast-check';

import { StatelessRequestMetaSchema, fits, shapeErrors } from '../test/sdk-shapes.support';
import { declaresRequestVersion, parseRequestMeta } from './request-meta.parser';

const VERSION = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const INFO = 'io.modelcontextprotocol/clientInfo';
const LEVEL = 'io.modelcontextprotocol/logLevel';

function params(meta: Record<string, unknown>): Record<string, unknown> {
  return { _meta: meta };
}

describe('parseRequestMeta', () => {
  it('reads the version, capabilities, client, log level and progress token of a stateless request', () => {
    const meta = { [VERSION]: '2026-07-28', [CAPS]: { elicitation: { form: {} } }, [INFO]: { name: 'agent', version: '1.2.0' }, [LEVEL]: 'warning', progressToken: 7 };
    expect(shapeErrors(StatelessRequestMetaSchema, meta)).toEqual([]);
    expect(parseRequestMeta(params(meta))).toEqual({
      ok: true,
      meta: { protocolVersion: '2026-07-28', clientCapabilities: { elicitation: { form: {} } }, clientInfo: { name: 'agent', version: '1.2.0' }, logLevel: 'warning', progressToken: 7 },
    });
  });

  it('takes an empty capabilities object as a client that offers nothing optional', () => {
    expect(parseRequestMeta(params({ [VERSION]: '2026-07-28', [CAPS]: {} }))).toEqual({ ok: true, meta: { protocolVersion: '2026-07-28', clientCapabilities: {} } });
  });

  it('keeps capability members the schema does not name (capabilities are an open set)', () => {
    const result = parseRequestMeta(params({ [VERSION]: '2026-07-28', [CAPS]: { 'com.example/x': { on: true } } }));
    expect(result).toMatchObject({ ok: true, meta: { clientCapabilities: { 'com.example/x': { on: true } } } });
  });

  it.each<[string, unknown, string]>([
    ['no params at all', undefined, 'Invalid params: params: must be an object carrying _meta, got nothing (member missing)'],
    ['params as an array', [], 'Invalid params: params: must be an object carrying _meta, got array'],
    ['no _meta', {}, 'Invalid params: params._meta: must be an object, got nothing (member missing)'],
    ['_meta as a string', { _meta: 'x' }, 'Invalid params: params._meta: must be an object, got string'],
    ['no version', params({ [CAPS]: {} }), `Invalid params: params._meta["${VERSION}"]: must be a non-empty string, got nothing (member missing)`],
    ['a numeric version', params({ [VERSION]: 20260728, [CAPS]: {} }), `Invalid params: params._meta["${VERSION}"]: must be a non-empty string, got integer`],
    ['an empty version', params({ [VERSION]: '', [CAPS]: {} }), `Invalid params: params._meta["${VERSION}"]: must be a non-empty string, got string`],
    ['no capabilities', params({ [VERSION]: '2026-07-28' }), `Invalid params: params._meta["${CAPS}"]: must be an object (empty when the client offers nothing), got nothing (member missing)`],
    ['capabilities as null', params({ [VERSION]: '2026-07-28', [CAPS]: null }), `Invalid params: params._meta["${CAPS}"]: must be an object (empty when the client offers nothing), got null`],
    ['elicitation as true', params({ [VERSION]: '2026-07-28', [CAPS]: { elicitation: true } }), `Invalid params: params._meta["${CAPS}"].elicitation: must be an object, got boolean`],
    ['elicitation.url as a list', params({ [VERSION]: '2026-07-28', [CAPS]: { elicitation: { url: [] } } }), `Invalid params: params._meta["${CAPS}"].elicitation.url: must be an object, got array`],
    ['sampling.tools as a string', params({ [VERSION]: '2026-07-28', [CAPS]: { sampling: { tools: 'yes' } } }), `Invalid params: params._meta["${CAPS}"].sampling.tools: must be an object, got string`],
    ['roots as a number', params({ [VERSION]: '2026-07-28', [CAPS]: { roots: 1 } }), `Invalid params: params._meta["${CAPS}"].roots: must be an object, got integer`],
    ['an experimental setting that is not an object', params({ [VERSION]: '2026-07-28', [CAPS]: { experimental: { beta: 1 } } }), `Invalid params: params._meta["${CAPS}"].experimental.beta: must be a settings object, got integer`],
    ['an extension without a prefix', params({ [VERSION]: '2026-07-28', [CAPS]: { extensions: { tasks: {} } } }), `Invalid params: params._meta["${CAPS}"].extensions.tasks: an extension identifier must be a prefixed key such as "com.example/name"`],
    ['clientInfo without a version', params({ [VERSION]: '2026-07-28', [CAPS]: {}, [INFO]: { name: 'a' } }), `Invalid params: params._meta["${INFO}"].version: must be a string, got nothing (member missing)`],
    ['clientInfo with a numeric title', params({ [VERSION]: '2026-07-28', [CAPS]: {}, [INFO]: { name: 'a', version: '1', title: 3 } }), `Invalid params: params._meta["${INFO}"].title: must be a string when given, got integer`],
    ['an unknown log level', params({ [VERSION]: '2026-07-28', [CAPS]: {}, [LEVEL]: 'verbose' }), `Invalid params: params._meta["${LEVEL}"]: must be one of debug, info, notice, warning, error, critical, alert, emergency`],
    ['a fractional progress token', params({ [VERSION]: '2026-07-28', [CAPS]: {}, progressToken: 1.5 }), 'Invalid params: params._meta.progressToken: must be a string or an integer, got float'],
  ])('refuses %s with -32602 naming the member', (_case, given, message) => {
    expect(parseRequestMeta(given)).toEqual({ ok: false, error: { code: -32602, message } });
  });

  it('refuses exactly what the SDK-based _meta schema refuses, for generated _meta objects', () => {
    const anyJson = fc.oneof(fc.constant(undefined), fc.constant(null), fc.boolean(), fc.integer(), fc.string(), fc.constant([]), fc.constant({}));
    const capabilities = fc.oneof(
      anyJson,
      fc.record(
        {
          roots: anyJson,
          elicitation: fc.oneof(anyJson, fc.record({ form: anyJson, url: anyJson }, { requiredKeys: [] })),
          sampling: fc.oneof(anyJson, fc.record({ context: anyJson, tools: anyJson }, { requiredKeys: [] })),
          experimental: fc.oneof(anyJson, fc.dictionary(fc.constantFrom('a', 'b'), anyJson)),
          // Only prefixed extension keys: the SDK takes any key there, we refuse one without a prefix (a case above).
          extensions: fc.oneof(anyJson, fc.dictionary(fc.constantFrom('com.example/a', 'io.modelcontextprotocol/tasks'), anyJson)),
        },
        { requiredKeys: [] },
      ),
    );
    const meta = fc.record(
      {
        [VERSION]: fc.oneof(anyJson, fc.constantFrom('2026-07-28', '1900-01-01')),
        [CAPS]: capabilities,
        [INFO]: fc.oneof(anyJson, fc.record({ name: fc.oneof(fc.string(), anyJson), version: fc.oneof(fc.string(), anyJson), title: fc.oneof(fc.string(), anyJson) }, { requiredKeys: [] })),
        [LEVEL]: fc.oneof(anyJson, fc.constantFrom('debug', 'emergency', 'loud')),
        // Integers beyond ±2^53 included: the SDK's progress token refuses them, as we do.
        progressToken: fc.oneof(anyJson, fc.double()),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(meta, (generated) => {
        // JSON has no undefined: a member set to undefined is a member left out.
        const wire = JSON.parse(JSON.stringify(generated)) as Record<string, unknown>;
        // The SDK-based schema allows an empty version string; we do not, as a version must name something.
        fc.pre(wire[VERSION] !== '');
        expect(parseRequestMeta({ _meta: wire }).ok).toBe(fits(StatelessRequestMetaSchema, wire));
      }),
      { numRuns: 500 },
    );
  });
});

describe('declaresRequestVersion', () => {
  it('recognises a request sent the stateless way by the version in _meta alone', () => {
    expect(declaresRequestVersion({ _meta: { [VERSION]: 'anything' } })).toBe(true);
    expect(declaresRequestVersion({ _meta: { progressToken: 1 } })).toBe(false);
    expect(declaresRequestVersion({ protocolVersion: '2026-07-28' })).toBe(false);
    expect(declaresRequestVersion(undefined)).toBe(false);
  });
});
