import type { ToolSpec } from '@estate/contracts';
import type { CatalogEntry } from '@estate/events';
import { bankSpecs } from '../../examples/bank/bank.specs';
import { http, waitFor } from './estate.harness';
import type { EdgeHandle, EstateServices } from './estate.stack';

/** One refused attempt: what the publisher was told. */
export interface Refusal {
  at: number;
  status: number;
  retryAfter: string | null;
  error: unknown;
}

interface LedgerOptions {
  stack: EstateServices;
  edge: EdgeHandle;
  admin: string;
  /** The upstream server the tools are published under (`<server>.<tool>`). */
  server: string;
  /**
   * Retry a publish refused with 503 (as a client honouring Retry-After would, sooner) instead of
   * failing: for faults of PostgreSQL, where the registry itself cannot store.
   */
  retryUnavailable?: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A steady publisher and what it was told: every accepted publish, every refusal, and the checks
 * that the estate is whole again (catalog, the edge's replica, the audit trail exactly once, a
 * fresh fold) with the time each took.
 */
export class PublishLedger {
  readonly published: Array<{ name: string; version: string }> = [];
  readonly refusals: Refusal[] = [];
  /** Publishes stored although their answer was a refusal (the connection died after the commit). */
  readonly storedDespiteRefusal: string[] = [];
  readonly figures: Record<string, number> = {};
  private readonly next = new Map<string, number>();
  private readonly template: ToolSpec;

  constructor(private readonly options: LedgerOptions) {
    this.template = bankSpecs(options.server)[0];
  }

  async publishOne(tool: string): Promise<void> {
    const n = this.next.get(tool) ?? 0;
    this.next.set(tool, n + 1);
    const { server, stack, admin } = this.options;
    const spec: ToolSpec = { ...this.template, name: `${server}.${tool}`, version: `1.${n}.0`, upstream: { server, tool } };
    for (let refused = false; ; refused = true) {
      const response = await fetch(`${stack.registryUrl}/v1/tools`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` }, body: JSON.stringify(spec) });
      const body = (await response.json()) as { error?: unknown };
      if (response.status === 201 || (refused && body.error === 'VERSION_ALREADY_PUBLISHED' && (await this.storedAsSent(spec)))) {
        if (response.status !== 201) this.storedDespiteRefusal.push(`${spec.name}@${spec.version}`);
        this.published.push({ name: spec.name, version: spec.version });
        return;
      }
      this.refusals.push({ at: Date.now(), status: response.status, retryAfter: response.headers.get('retry-after'), error: body.error });
      // A broker fault never refuses a publish (only PostgreSQL is needed); a PostgreSQL fault only as unavailable.
      if (!this.options.retryUnavailable || response.status !== 503) {
        throw new Error(`publishing ${spec.name}@${spec.version} answered ${response.status}: ${JSON.stringify(body)}`);
      }
      await sleep(250);
    }
  }

  /** One publish every 100 ms for `ms`, round-robin over the tools. */
  async publishFor(ms: number, tools: string[]): Promise<void> {
    const end = Date.now() + ms;
    for (let i = 0; Date.now() < end; i += 1) {
      const started = Date.now();
      await this.publishOne(tools[i % tools.length]);
      await sleep(Math.max(0, 100 - (Date.now() - started)));
    }
  }

  async catalog(): Promise<CatalogEntry[]> {
    return ((await http('GET', `${this.options.stack.discoveryUrl}/v1/catalog`, this.options.admin)).body.tools ?? []) as CatalogEntry[];
  }

  /** Every version the catalog holds for these tools is in the order it was published. */
  async expectOrderKept(): Promise<void> {
    const names = new Set(this.published.map((p) => p.name));
    for (const entry of (await this.catalog()).filter((t) => names.has(t.name))) {
      expect(entry.versions.map((v) => v.version)).toEqual(this.published.filter((p) => p.name === entry.name).map((p) => p.version));
    }
  }

  /** Waits until the first `count` accepted publishes are in the catalog, the edge's replica and the audit trail. */
  async untilWhole(label: string, since: number, count = this.published.length): Promise<void> {
    const publishes = this.published.slice(0, count);
    const wanted = publishes.map((p) => `${p.name}@${p.version}`);
    // Not whole yet: says which are missing, so a timeout tells a stalled relay (the newest missing) from a lost event (one in the middle).
    const holds = (have: Set<string>) => {
      const missing = wanted.filter((key) => !have.has(key));
      if (missing.length === 0) return true;
      throw new Error(`${missing.length} of ${wanted.length} missing: ${missing.slice(0, 6).join(', ')}${missing.length > 6 ? ', …' : ''}`);
    };
    await waitFor(async () => holds(new Set((await this.catalog()).flatMap((t) => t.versions.map((v) => `${t.name}@${v.version}`)))), `${label}: every publish in discovery's catalog`, 120_000);
    this.figures[`${label}: catalog complete`] = Date.now() - since;
    // The edge serves from its own replica of the catalog topic: it must not keep a stale list.
    const { replica } = this.options.edge;
    await waitFor(async () => (publishes.every((p) => replica.get(p.name)?.versions.some((v) => v.version === p.version)) ? true : undefined), `${label}: every publish in the edge's replica`, 60_000);
    this.figures[`${label}: edge replica complete`] = Date.now() - since;
    await waitFor(async () => holds(new Set(await this.auditedPublishes())), `${label}: every publish in the audit trail`, 120_000);
    this.figures[`${label}: audit complete`] = Date.now() - since;
  }

  /** Whole again: every accepted publish everywhere, audited exactly once, the catalog equal to a fresh fold. */
  async expectRecovered(label: string, since: number): Promise<void> {
    const { stack, admin } = this.options;
    await this.untilWhole(label, since);
    expect((await this.auditedPublishes()).sort()).toEqual(this.published.map((p) => `${p.name}@${p.version}`).sort());
    const verify = await http('GET', `${stack.discoveryUrl}/v1/verify`, admin);
    expect(verify).toMatchObject({ status: 200, body: { equal: true, differences: [] } });
    expect((await http('GET', `${stack.auditUrl}/v1/audit/verify`, admin)).body).toMatchObject({ ok: true });
  }

  private async storedAsSent(spec: ToolSpec): Promise<boolean> {
    const stored = await http('GET', `${this.options.stack.registryUrl}/v1/tools/${spec.name}/versions/${spec.version}`, this.options.admin);
    const kept = stored.body.spec as ToolSpec | undefined;
    return stored.status === 200 && kept?.description === spec.description && JSON.stringify(kept.inputSchema) === JSON.stringify(spec.inputSchema);
  }

  private async auditedPublishes(): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `type=ToolVersionPublished&limit=500${cursor ? `&cursor=${cursor}` : ''}`;
      const page = (await http('GET', `${this.options.stack.auditUrl}/v1/audit?${query}`, this.options.admin)).body as { entries: Array<{ tool: string; version: string }>; nextCursor: string | null };
      seen.push(...page.entries.map((e) => `${e.tool}@${e.version}`));
      cursor = page.nextCursor;
    } while (cursor);
    return seen;
  }
}
