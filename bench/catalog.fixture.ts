import type { ToolSpec } from '@estate/contracts';
import type { CatalogEntry, CatalogVersion } from '@estate/events';

/** The caller every edge figure is measured as: sees roughly 3 tools in 8 of the synthetic catalog. */
export const BENCH_AGENT = { sub: 'bench-agent', tenant: 'retail', scope: 'bench:read bench:call', clearance: 'internal' };

export const NOOP_TOOL = 'bench.noop';
/** The arguments every measured call sends, directly and through the edge. */
export const NOOP_ARGUMENTS = { reference: 'PAY-00000001' };

const NOOP_SCHEMA = {
  type: 'object',
  properties: { reference: { type: 'string', pattern: '^PAY-[0-9]{8}$' } },
  required: ['reference'],
  additionalProperties: false,
};

/** What the upstream advertises for tool `i` (0 is `noop`); the catalog publishes exactly this, so the edge's drift check agrees. */
export function advertisedTool(i: number): { name: string; description: string; inputSchema: Record<string, unknown> } {
  if (i === 0) return { name: 'noop', description: 'Does nothing and answers at once.', inputSchema: NOOP_SCHEMA };
  return {
    name: `tool${String(i).padStart(4, '0')}`,
    description: `Synthetic tool ${i} of the benchmark catalog.`,
    inputSchema: { type: 'object', properties: { id: { type: 'string', maxLength: 64 }, count: { type: 'integer', minimum: 0 } }, required: ['id'] },
  };
}

function spec(i: number, name: string, version: string, overrides: Partial<ToolSpec>): ToolSpec {
  const advertised = advertisedTool(i);
  return {
    name,
    version,
    title: `Bench ${name} ${version}`,
    description: advertised.description,
    inputSchema: advertised.inputSchema,
    sideEffect: 'read',
    requiredScopes: ['bench:read'],
    dataClassification: 'internal',
    tenants: [],
    owner: 'bench-team',
    upstream: { server: 'bench', tool: advertised.name },
    ...overrides,
  };
}

function version(s: ToolSpec): CatalogVersion {
  return { version: s.version, status: 'active', quarantined: false, spec: s, publishedAt: '2026-01-01T00:00:00.000Z' };
}

/**
 * Why a synthetic tool is hidden from BENCH_AGENT, so the list exercises every filter: a missing
 * scope, a tenant list without "retail", a classification above "internal".
 */
function visibilityFor(i: number): Partial<ToolSpec> {
  if (i % 4 === 0) return { requiredScopes: ['bench:admin'] };
  if (i % 4 === 1) return { dataClassification: 'restricted' };
  if (i % 8 === 2) return { tenants: ['wholesale'] };
  return i % 8 === 3 ? { tenants: ['retail'] } : {};
}

/** `count` catalog entries (two versions each) plus the zero-work tool the call figures use. */
export function benchCatalog(count: number, upstreamUrl: string): CatalogEntry[] {
  const upstream = { server: 'bench', transport: 'streamable-http' as const, url: upstreamUrl, allowSampling: false, allowElicitation: false };
  const noop = spec(0, NOOP_TOOL, '1.0.0', { requiredScopes: ['bench:call'], dataClassification: 'public' });
  const entries: CatalogEntry[] = [{ name: NOOP_TOOL, upstream, versions: [version(noop)], position: 1 }];
  for (let i = 1; i < count; i += 1) {
    const name = `bench.tool${String(i).padStart(4, '0')}`;
    const older = spec(i, name, '1.0.0', visibilityFor(i));
    const newer = spec(i, name, '1.1.0', visibilityFor(i));
    entries.push({ name, upstream, versions: [version(older), version(newer)], position: i + 1 });
  }
  return entries;
}

/** How many of the entries BENCH_AGENT may see (the figure the list measurements report). */
export function visibleCount(count: number): number {
  let visible = 1;
  for (let i = 1; i < count; i += 1) if (i % 4 >= 2 && i % 8 !== 2) visible += 1;
  return visible;
}
