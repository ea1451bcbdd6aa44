import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CatalogEntry } from '@estate/events';
import { startBankServer, type BankServerHandle } from '../../examples/bank/bank.server';
import { bankSpecs } from '../../examples/bank/bank.specs';
import { EmbeddedEstateRunner } from './embedded.runner';
import { ADMIN, connect, http, waitFor } from './estate.harness';
import { REPO_ROOT } from './infra';

const ALICE = { sub: 'alice', scope: 'bank:read', clearance: 'internal' };
const LOOKUP = bankSpecs('bank')[0];
const spec = (version: string) => ({ ...LOOKUP, version, description: `${LOOKUP.description} Contract ${version}.` });

/** Milliseconds: spawn → banner; spawn → the versions published before the stop are in tools/list; publish → visible. */
interface Timing {
  phase: string;
  startMs: number;
  previousVisibleMs?: number;
  publishToCatalogMs: number;
  publishToListMs: number;
  publishToListChangedMs: number;
}

/** Which bus `npm start` runs on: the environment it gets on every start and the banner line that names it. */
export interface RestartMode {
  title: string;
  /** Recomputed per suite, so random topic prefixes and groups stay the same across its restarts. */
  env: () => Record<string, string>;
  busLine: string;
}

/**
 * The log is the truth: `npm start` is stopped with Ctrl-C and killed with SIGKILL of its process
 * group between publishes; after every restart each accepted publish is in discovery, in an
 * agent's tools/list and once in the audit trail, and a fresh publish still reaches the agent as
 * list_changed. One flow for every bus, so each mode is held to the same acceptance.
 */
export function describeRestartFlow(mode: RestartMode): void {
  describe(mode.title, () => {
    let dataDir: string;
    let estate: EmbeddedEstateRunner;
    let bank: BankServerHandle;
    const timings: Timing[] = [];

    beforeAll(async () => {
      dataDir = mkdtempSync(path.join(os.tmpdir(), 'estate-durability-'));
      estate = new EmbeddedEstateRunner(dataDir, mode.env());
      bank = await startBankServer({ port: 0 });
    });

    afterAll(async () => {
      await estate?.dispose();
      await bank?.close();
      rmSync(dataDir, { recursive: true, force: true });
      process.stderr.write(`[durability] ${mode.busLine}: ${JSON.stringify(timings)}\n`);
    });

    const catalogVersions = async (): Promise<string[]> => {
      const r = await http('GET', `${estate.urls.discovery}/v1/catalog`, await estate.token(ADMIN));
      const tool = ((r.body.tools ?? []) as CatalogEntry[]).find((t) => t.name === LOOKUP.name);
      return tool ? tool.versions.map((v) => v.version) : [];
    };

    /** Waits until the agent's tools/list carries this version's contract; returns the time it took. */
    const untilListed = async (agent: Awaited<ReturnType<typeof connect>>, version: string, since: number): Promise<number> => {
      await waitFor(async () => ((await agent.client.listTools()).tools.find((t) => t.name === LOOKUP.name)?.description === spec(version).description ? true : undefined),
        `${version} in the agent's tools/list`, 30000);
      return Date.now() - since;
    };

    /** One phase: the estate has just started; every earlier version must be back, then a new one is published. */
    const phase = async (name: string, startMs: number, earlier: string[], version: string): Promise<void> => {
      const admin = await estate.token(ADMIN);
      const agent = await connect(estate.urls.mcp, await estate.token(ALICE));
      try {
        const spawnedAt = Date.now() - startMs;
        let previousVisibleMs: number | undefined;
        if (earlier.length > 0) {
          await waitFor(async () => (JSON.stringify(await catalogVersions()) === JSON.stringify(earlier) ? true : undefined), `${earlier.join(', ')} in the catalog after the restart`, 30000);
          previousVisibleMs = await untilListed(agent, earlier[earlier.length - 1], spawnedAt);
        }
        // The SDK opens its SSE stream (where list_changed arrives) just after initialization.
        await new Promise((resolve) => setTimeout(resolve, 500));
        const heard = agent.listChanged.length;
        const published = Date.now();
        expect(await http('POST', `${estate.urls.registry}/v1/tools`, admin, spec(version))).toMatchObject({ status: 201, body: { version } });
        await waitFor(async () => ((await catalogVersions()).includes(version) ? true : undefined), `${version} in the catalog`, 30000);
        const publishToCatalogMs = Date.now() - published;
        const publishToListMs = await untilListed(agent, version, published);
        await waitFor(async () => (agent.listChanged.length > heard ? true : undefined), `list_changed for ${version}`, 30000);
        timings.push({ phase: name, startMs, previousVisibleMs, publishToCatalogMs, publishToListMs, publishToListChangedMs: agent.listChanged[heard] - published });
        expect(await catalogVersions()).toEqual([...earlier, version]);
      } finally {
        await agent.close();
      }
    };

    it('keeps every accepted publish through a clean stop and a crash of the whole process group', async () => {
      const first = await estate.start();
      expect(estate.child?.output()).toContain(`bus: ${mode.busLine}; database: embedded`);
      expect(estate.hasRecord()).toBe(true);
      const admin = await estate.token(ADMIN);
      expect((await http('POST', `${estate.urls.registry}/v1/servers`, admin, { name: 'bank', url: bank.url, owner: 'payments-team' })).status).toBe(201);
      await phase('fresh start', first, [], '1.0.0');
      expect(await estate.interrupt()).toBe(0);
      expect(estate.hasRecord()).toBe(false);

      await phase('after Ctrl-C', await estate.start(), ['1.0.0'], '1.1.0');
      // Acknowledged, then the whole process group dies before anything else can happen.
      expect((await http('POST', `${estate.urls.registry}/v1/tools`, await estate.token(ADMIN), spec('1.2.0'))).status).toBe(201);
      await estate.kill();
      expect(estate.hasRecord()).toBe(true);
      const joiner = spawnSync(process.execPath, [path.join(REPO_ROOT, 'dist/apps/cli/src/main.js'), 'stdio'], {
        cwd: REPO_ROOT, input: '', timeout: 20000,
        env: { ...process.env, ESTATE_DATA_DIR: dataDir, KAFKA_BROKERS: '', DATABASE_URL: '', ESTATE_STDIO_TOKEN: 'unused' },
      });
      expect(joiner.status).toBe(1);
      expect(joiner.stdout.toString()).toBe('');
      expect(joiner.stderr.toString()).toContain('is not running any more; start it again with `npm start`');

      await phase('after SIGKILL', await estate.start(), ['1.0.0', '1.1.0', '1.2.0'], '1.3.0');
      const trail = await waitFor(async () => {
        const r = await http('GET', `${estate.urls.audit}/v1/audit?type=ToolVersionPublished&tool=${LOOKUP.name}`, await estate.token(ADMIN));
        const entries = (r.body.entries ?? []) as Array<{ version: string }>;
        return entries.length >= 4 ? entries : undefined;
      }, 'four publishes in the audit trail', 30000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const settled = await http('GET', `${estate.urls.audit}/v1/audit?type=ToolVersionPublished&tool=${LOOKUP.name}`, await estate.token(ADMIN));
      expect((settled.body.entries as Array<{ version: string }>).map((e) => e.version)).toEqual(['1.3.0', '1.2.0', '1.1.0', '1.0.0']);
      expect(trail.map((e) => e.version)).toEqual(['1.3.0', '1.2.0', '1.1.0', '1.0.0']);
      expect(await estate.interrupt()).toBe(0);
    }, 300000);
  });
}
