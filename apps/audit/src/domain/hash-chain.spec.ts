import fc from 'fast-check';
import type { AuditEntryContent } from './audit-entry.mapper';
import { canonicalEntry, canonicalJson, ChainVerifier, entryHash, GENESIS_HASH } from './hash-chain';
import type { AuditEntry } from './audit-entry.mapper';

const content = (eventId: string, data: Record<string, unknown> = {}): AuditEntryContent => ({
  eventId,
  topic: 'estate.calls',
  type: 'ToolCallCompleted',
  stream: 'agent-7',
  tool: 'payments.lookup',
  version: '1.0.0',
  principal: 'agent-7',
  outcome: 'ok',
  occurredAt: '2025-01-01T00:00:00.000Z',
  payload: {
    id: eventId, type: 'ToolCallCompleted', version: 1, stream: 'agent-7', position: 0,
    occurredAt: '2025-01-01T00:00:00.000Z', actor: 'edge', correlationId: 'c', data,
  },
});

/** Builds a valid chain the way the repository appends it. */
function chain(ids: string[]): AuditEntry[] {
  let prev = GENESIS_HASH;
  return ids.map((id, index) => {
    const link = { seq: index + 1, prevHash: prev, hash: entryHash(prev, content(id)), ...content(id) };
    prev = link.hash;
    return link;
  });
}

function verify(links: AuditEntry[], head = { lastSeq: links.at(-1)?.seq ?? 0, hash: links.at(-1)?.hash ?? GENESIS_HASH }) {
  const verifier = new ChainVerifier(head);
  links.forEach((link) => verifier.accept(link));
  return verifier.result();
}

describe('canonicalJson', () => {
  /** Sorts every object's keys, plainly: what canonicalJson must equal. */
  const reference = (value: unknown): string => {
    if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
    if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record).sort().filter((k) => record[k] !== undefined).map((k) => `${JSON.stringify(k)}:${reference(record[k])}`).join(',')}}`;
  };

  it('sorts keys at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('serializes the same content the same way whatever the key order', () => {
    expect(canonicalJson({ x: 1, y: 'two' })).toBe(canonicalJson({ y: 'two', x: 1 }));
  });

  it('writes exactly what a plain sort-every-object serializer writes (key order skipped when sorted)', () => {
    const samples: unknown[] = [
      { a: 1, b: { c: 'x', d: [1, 'two', null, { f: true, e: false }] } },
      { b: 'tab\there', a: 'quote " and \\ and \u0000 and \ud800 alone' },
      { 10: 'ten', 9: 'nine', a10: 1, A: 2, '': 3, 'é': 4, 'z': { '2': [], '1': {} } },
      JSON.parse('{"__proto__": {"x": 1}, "constructor": "c", "toString": 5}'),
      { n: -0, big: 1e21, small: 1e-7, nan: Number.NaN, skip: undefined },
    ];
    for (const sample of samples) expect(canonicalJson(sample)).toBe(reference(sample));
    // Values JSON.stringify would write differently from the canonical form take the key-by-key path.
    expect(canonicalJson({ b: new Date(0), a: () => 1 })).toBe(reference({ b: new Date(0), a: () => 1 }));
    expect(canonicalJson([{ y: 1, x: Object.create(null) }])).toBe('[{"x":{},"y":1}]');
  });

  it('writes what the reference writes for any JSON text parsed, whatever its keys', () => {
    const key = fc.oneof(fc.string(), fc.constantFrom('__proto__', '0', '10', '9', 'a', 'A', '', 'é', '\ud800'));
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), tie('object'), fc.array(tie('value'), { maxLength: 4 })),
      object: fc.dictionary(key, tie('value'), { maxKeys: 6 }),
    })).value;
    fc.assert(fc.property(json, (value) => {
      // Through JSON text, as the trail receives payloads: `__proto__` becomes an own key.
      const parsed = JSON.parse(JSON.stringify(value)) as unknown;
      expect(canonicalJson(parsed)).toBe(reference(parsed));
    }), { numRuns: 500 });
  });
});

describe('entryHash', () => {
  it('is sha256 hex and depends on the previous hash and on the content', () => {
    const hash = entryHash(GENESIS_HASH, content('e1'));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(entryHash(GENESIS_HASH, content('e1'))).toBe(hash);
    expect(entryHash('1'.repeat(64), content('e1'))).not.toBe(hash);
    expect(entryHash(GENESIS_HASH, content('e1', { extra: true }))).not.toBe(hash);
  });

  it('keeps the value every existing trail was hashed with (the fast canonical form equals the generic one)', () => {
    const odd = content('e1', { z: '\u0000\ud800"', a: [1, { y: 2, b: null }] });
    // Computed by the generic canonicalJson({ ...fields }) form before the fast path existed.
    expect(entryHash(GENESIS_HASH, odd)).toBe('83263a9a61eebef62e55757b27070ea70dcd6dcd4717c6131917c56e5a6ccff6');
    const bare = { ...odd, tool: null, version: null, outcome: null };
    expect(canonicalEntry(bare, canonicalJson(bare.payload))).toBe(canonicalJson({ ...bare }));
  });

  it('does not change when the payload comes back from jsonb with its keys reordered', () => {
    const original = content('e1', { b: 1, a: 2 });
    const reordered = { ...original, payload: { ...original.payload, data: { a: 2, b: 1 } } };
    expect(entryHash(GENESIS_HASH, reordered)).toBe(entryHash(GENESIS_HASH, original));
  });
});

describe('ChainVerifier', () => {
  it('accepts an empty trail and an intact chain', () => {
    expect(verify([])).toEqual({ ok: true, entries: 0, headHash: GENESIS_HASH });
    const links = chain(['a', 'b', 'c']);
    // The head hash is the newest entry's: what an operator keeps elsewhere to notice a rewritten table.
    expect(verify(links)).toEqual({ ok: true, entries: 3, headHash: links[2].hash });
  });

  it('accepts gaps in seq (sequence values lost to rolled-back appends)', () => {
    const links = chain(['a', 'b']).map((link, index) => ({ ...link, seq: index === 0 ? 1 : 5 }));
    expect(verify(links)).toMatchObject({ ok: true, entries: 2 });
  });

  it('reports the first entry whose content was changed', () => {
    const links = chain(['a', 'b', 'c']);
    links[1] = { ...links[1], principal: 'someone-else' };
    expect(verify(links)).toEqual({ ok: false, entries: 3, firstBrokenSeq: 2 });
  });

  it('reports an entry removed from the middle at its successor', () => {
    const links = chain(['a', 'b', 'c']);
    expect(verify([links[0], links[2]])).toEqual({ ok: false, entries: 2, firstBrokenSeq: 3 });
  });

  it('reports entries removed from the end through the head', () => {
    const links = chain(['a', 'b', 'c']);
    expect(verify(links.slice(0, 2), { lastSeq: 3, hash: links[2].hash })).toEqual({ ok: false, entries: 2, firstBrokenSeq: 3 });
  });

  it('reports an entry that was not appended through the head', () => {
    const links = chain(['a', 'b', 'c']);
    expect(verify(links, { lastSeq: 2, hash: links[1].hash })).toEqual({ ok: false, entries: 3, firstBrokenSeq: 3 });
  });

  it('reports a head whose hash was replaced', () => {
    const links = chain(['a', 'b']);
    expect(verify(links, { lastSeq: 2, hash: 'f'.repeat(64) })).toEqual({ ok: false, entries: 2, firstBrokenSeq: 2 });
  });
});

describe('ChainVerifier.acceptStored (payload as the stored text)', () => {
  const stored = (links: AuditEntry[], texts: string[], head = { lastSeq: links.at(-1)?.seq ?? 0, hash: links.at(-1)?.hash ?? GENESIS_HASH }) => {
    const verifier = new ChainVerifier(head);
    links.forEach(({ payload: _payload, ...link }, i) => verifier.acceptStored(link, texts[i]));
    return verifier.result();
  };
  const canonicalTexts = (links: AuditEntry[]) => links.map((link) => canonicalJson(link.payload));

  it('gives the verdict accept gives, for intact and broken chains alike', () => {
    const links = chain(['a', 'b', 'c']);
    const changed = links.map((link, i) => (i === 1 ? { ...link, outcome: 'tool_error' } : link));
    const cases: Array<[AuditEntry[], { lastSeq: number; hash: string } | undefined]> = [
      [links, undefined], [changed, undefined], [[links[0], links[2]], undefined],
      [links.slice(0, 2), { lastSeq: 3, hash: links[2].hash }], [links, { lastSeq: 2, hash: links[1].hash }],
    ];
    for (const [chainCase, head] of cases) expect(stored(chainCase, canonicalTexts(chainCase), head)).toEqual(verify(chainCase, head));
  });

  it('accepts a payload stored with other whitespace or key order, since its content hashes the same', () => {
    const links = chain(['a', 'b']);
    const texts = canonicalTexts(links);
    texts[0] = JSON.stringify({ ...links[0].payload, data: {}, id: 'a' }, null, 2);
    expect(texts[0]).not.toBe(canonicalJson(links[0].payload));
    expect(stored(links, texts)).toEqual({ ok: true, entries: 2, headHash: links[1].hash });
  });

  it('reports the entry whose payload text was changed, or is not JSON', () => {
    const links = chain(['a', 'b', 'c']);
    const changed = canonicalTexts(links);
    changed[1] = changed[1].replace('"actor":"edge"', '"actor":"mallory"');
    expect(stored(links, changed)).toEqual({ ok: false, entries: 3, firstBrokenSeq: 2 });
    const garbled = canonicalTexts(links);
    garbled[2] = garbled[2].slice(0, -1);
    expect(stored(links, garbled)).toEqual({ ok: false, entries: 3, firstBrokenSeq: 3 });
  });
});
