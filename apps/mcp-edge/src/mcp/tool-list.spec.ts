import type { CatalogEntry } from '@estate/events';
import type { ToolSpec } from '@estate/contracts';
import { listToolPage, PAGE_SIZE } from './tool-list';

const principal = { id: 'p', scopes: ['s'], clearance: 'internal' as const };
const entry = (name: string): CatalogEntry => {
  const spec: ToolSpec = {
    name, version: '1.0.0', description: `Tool ${name}.`, inputSchema: { type: 'object' }, sideEffect: 'read',
    requiredScopes: ['s'], dataClassification: 'internal', tenants: [], owner: 'o', upstream: { server: 'x', tool: 't' },
  };
  return {
    name, position: 1, versions: [{ version: '1.0.0', status: 'active', quarantined: false, spec, publishedAt: '2026-01-01T00:00:00Z' }],
    upstream: { server: 'x', transport: 'streamable-http', url: 'http://x', allowSampling: false, allowElicitation: false },
  };
};

describe('tools/list pages', () => {
  const names = Array.from({ length: PAGE_SIZE * 2 + 5 }, (_, i) => `x.tool_${String(i).padStart(4, '0')}`);
  const entries = [...names].reverse().map(entry);

  it('walks every visible tool once, sorted by name, with an opaque cursor', () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = listToolPage(entries, principal, {}, cursor);
      seen.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(names);
  });

  it('refuses a cursor it did not issue with -32602', () => {
    expect(() => listToolPage(entries, principal, {}, 'garbage')).toThrow(expect.objectContaining({ code: -32602 }));
  });
});
