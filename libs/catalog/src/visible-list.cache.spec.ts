import type { Principal, ToolSpec } from '@estate/contracts';
import type { CatalogEntry } from '@estate/events';
import { listVisible } from './catalog.view';
import { VisibleListCache, isVisibleCatalog, visibilityKey } from './visible-list.cache';

const entry = (name: string, facts: Partial<ToolSpec> = {}): CatalogEntry => {
  const spec: ToolSpec = {
    name, version: '1.0.0', description: name, inputSchema: { type: 'object' }, sideEffect: 'read', requiredScopes: [],
    dataClassification: 'public', tenants: [], owner: 'o', upstream: { server: 'x', tool: name }, ...facts,
  };
  return {
    name, position: 1, versions: [{ version: '1.0.0', status: 'active', quarantined: false, spec, publishedAt: '2026-01-01T00:00:00Z' }],
    upstream: { server: 'x', transport: 'streamable-http', allowSampling: false, allowElicitation: false },
  };
};
const anyone: Principal = { id: 'p', scopes: [], clearance: 'public' };

describe('visible-list cache', () => {
  it('keys on scopes as a set, tenant, clearance and pins, and on nothing else', () => {
    const key = visibilityKey(anyone, {});
    expect(visibilityKey({ ...anyone, id: 'someone else' }, {})).toBe(key);
    expect(visibilityKey({ ...anyone, scopes: ['b', 'a'] }, {})).toBe(visibilityKey({ ...anyone, scopes: ['a', 'b', 'a'] }, {}));
    const distinct = [
      key,
      visibilityKey({ ...anyone, scopes: ['a'] }, {}),
      visibilityKey({ ...anyone, tenant: 'acme' }, {}),
      visibilityKey({ ...anyone, tenant: '' }, {}),
      visibilityKey({ ...anyone, clearance: 'internal' }, {}),
      visibilityKey(anyone, { t: '1.0.0' }),
      visibilityKey(anyone, { t: '2.0.0' }),
      // Separators inside names cannot make two different principals collide.
      visibilityKey({ ...anyone, scopes: ['a","b'] }, {}),
      visibilityKey({ ...anyone, scopes: ['a', 'b'] }, {}),
    ];
    expect(new Set(distinct).size).toBe(distinct.length);
  });

  it('answers exactly what listVisible answers, for each principal, and rebuilds on a new generation', () => {
    const entries = [entry('t.open'), entry('t.scoped', { requiredScopes: ['s'] }), entry('t.acme', { tenants: ['acme'] })];
    const cache = new VisibleListCache();
    const scoped = { ...anyone, scopes: ['s'] };
    const acme = { ...anyone, tenant: 'acme' };
    for (const principal of [anyone, scoped, acme, anyone]) {
      expect(cache.list(entries, 1, principal, {}, 0)).toEqual(listVisible(entries, principal));
    }
    entries.push(entry('t.later'));
    expect(cache.list(entries, 1, anyone, {}, 0).map((t) => t.entry.name)).toEqual(['t.open']);
    expect(cache.list(entries, 2, anyone, {}, 0).map((t) => t.entry.name)).toEqual(['t.later', 't.open']);
  });

  it('stays within its key and tool limits, dropping the least recently used list', () => {
    const entries = [entry('t.a'), entry('t.b')];
    const cache = new VisibleListCache({ keys: 2, tools: 100 });
    const first = cache.list(entries, 1, { ...anyone, scopes: ['1'] }, {}, 0);
    cache.list(entries, 1, { ...anyone, scopes: ['2'] }, {}, 0);
    expect(cache.list(entries, 1, { ...anyone, scopes: ['1'] }, {}, 0)).toBe(first);
    cache.list(entries, 1, { ...anyone, scopes: ['3'] }, {}, 0);
    expect(cache.size).toBe(2);
    expect(cache.list(entries, 1, { ...anyone, scopes: ['1'] }, {}, 0)).toBe(first);

    const small = new VisibleListCache({ keys: 10, tools: 3 });
    small.list(entries, 1, { ...anyone, scopes: ['1'] }, {}, 0);
    small.list(entries, 1, { ...anyone, scopes: ['2'] }, {}, 0);
    expect(small.size).toBe(1);
  });

  it('drops its lists when a sunset passes, within one generation, so a sunset version stops being offered', () => {
    const sunsetAt = '2026-06-01T00:00:00.000Z';
    const base = entry('t.old');
    const old: CatalogEntry = { ...base, versions: [{ ...base.versions[0], status: 'deprecated', deprecation: { reason: 'r', sunsetAt } }] };
    const cache = new VisibleListCache();
    const pins = { 't.old': '^1.0.0' };
    expect(cache.list([old], 1, anyone, pins, Date.parse(sunsetAt) - 1).map((t) => t.version.version)).toEqual(['1.0.0']);
    expect(cache.list([old], 1, anyone, pins, Date.parse(sunsetAt))).toEqual([]);
  });

  it('builds from a catalog it can read only once, as a replica hands it its live entries', () => {
    const cache = new VisibleListCache();
    const live = new Map([['t.open', entry('t.open')]]);
    expect(cache.list(live.values(), 1, anyone, {}, 0).map((t) => t.entry.name)).toEqual(['t.open']);
    expect(cache.list(live.values(), 1, { ...anyone, scopes: ['x'] }, {}, 0).map((t) => t.entry.name)).toEqual(['t.open']);
  });

  it('recognises a catalog that can answer from its own cache', () => {
    expect(isVisibleCatalog([entry('t.a')])).toBe(false);
    const view = { [Symbol.iterator]: () => [entry('t.a')][Symbol.iterator](), visible: () => [] };
    expect(isVisibleCatalog(view)).toBe(true);
  });
});
