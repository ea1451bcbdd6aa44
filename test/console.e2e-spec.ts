import { mkdirSync } from 'node:fs';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import type { ToolSpec } from '@estate/contracts';
import { bankSpecs } from '../examples/bank/bank.specs';
import { ADMIN, http, token, waitFor } from './support/estate.harness';
import { startEstateServices, type EstateServices } from './support/estate.stack';

// The few browser globals the page callbacks touch, typed here so the project needs no DOM lib.
interface El { textContent: string | null; value: string; dataset: Record<string, string | undefined>; getAttribute(name: string): string | null; querySelectorAll(s: string): ArrayLike<El> }
declare const document: { querySelector(s: string): El | null; querySelectorAll(s: string): ArrayLike<El>; getElementById(id: string): El | null };
declare const location: { hash: string };
declare const sessionStorage: { getItem(key: string): string | null };
declare const window: { __pwned?: number };

const SHOTS = path.resolve(__dirname, '..', 'docs', 'console');
const CHROMIUM = process.env.ESTATE_CHROMIUM || '/usr/bin/chromium';
/** Untrusted text a publisher wrote: the console must show it as text, never run it. */
const HOSTILE = 'Moves money. Never send `<img src=x onerror="window.__pwned=1">` or `<b>bold</b>` & friends.';

describe('web console in headless Chromium (in-process stack, real Kafka and PostgreSQL)', () => {
  let stack: EstateServices;
  let consoleUrl: string;
  let browser: Browser;
  let page: Page;
  let admin: string;
  const [lookup, transfer] = bankSpecs('bank') as [ToolSpec, ToolSpec];
  const lookupV2: ToolSpec = {
    ...lookup, version: '2.0.0',
    inputSchema: { ...lookup.inputSchema, properties: { ...(lookup.inputSchema.properties as object), branch: { type: 'string' } }, required: [...((lookup.inputSchema.required as string[]) ?? []), 'branch'] },
  };

  beforeAll(async () => {
    stack = await startEstateServices({ name: 'console-e2e', audit: true, console: true });
    consoleUrl = stack.consoleUrl ?? '';
    admin = await token(ADMIN);
    expect((await http('POST', `${stack.registryUrl}/v1/servers`, admin, { name: 'bank', url: 'http://127.0.0.1:1/mcp', owner: 'payments-team' })).status).toBe(201);
    for (const spec of [lookup, lookupV2, { ...transfer, description: HOSTILE }]) {
      const published = await http('POST', `${stack.registryUrl}/v1/tools`, admin, spec);
      expect({ spec: `${spec.name}@${spec.version}`, status: published.status, body: published.body }).toMatchObject({ status: 201 });
    }
    mkdirSync(SHOTS, { recursive: true });
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  const textOf = (selector: string) => page.$eval(selector, (e) => e.textContent ?? '');
  /** Waits until the element exists and its text contains every part. */
  const waitForText = (selector: string, ...parts: string[]) =>
    page.waitForFunction((s, p) => { const t = document.querySelector(s)?.textContent ?? ''; return p.every((x) => t.includes(x)); }, { timeout: 20000 }, selector, parts);
  const go = async (hash: string) => {
    await page.evaluate((h) => { location.hash = h; }, hash);
  };

  it('signs in with a pasted token kept in session storage, never in the URL', async () => {
    await page.goto(consoleUrl);
    await page.waitForSelector('#token', { visible: true });
    await page.type('#token', admin);
    await page.click('#sign-in button[type=submit]');
    await waitForText('#catalog-results', 'bank.lookup', 'bank.transfer');
    expect(await page.evaluate(() => sessionStorage.getItem('estate.token'))).toBe(admin);
    expect(page.url()).not.toContain(admin);
    await waitForText('#who', 'platform-admin');
    await page.waitForFunction(() => document.getElementById('feed-state')?.dataset.state === 'live', { timeout: 20000 });
    await shot('catalog');
  });

  it('finds a tool by search and filter, and shows untrusted descriptions as text', async () => {
    await page.type('#catalog-search', 'transfer');
    await page.waitForFunction(() => document.querySelectorAll('#catalog-results tbody tr[data-tool]').length === 1, { timeout: 10000 });
    expect(await page.$$eval('#catalog-results tr[data-tool]', (rows) => rows.map((r) => r.getAttribute('data-tool')))).toEqual(['bank.transfer']);
    await page.$eval('#catalog-search', (e) => { (e as unknown as El).value = ''; });
    await page.select('#catalog-classification', 'internal');
    await page.waitForFunction(() => Array.from(document.querySelectorAll('#catalog-results tr[data-tool]')).every((r) => r.getAttribute('data-tool') === 'bank.lookup'), { timeout: 10000 });
    await page.goto(`${consoleUrl}/#/tool/bank.transfer`);
    await waitForText('#tool-description', '<img src=x onerror=');
    expect(await page.$('#tool-description img')).toBeNull();
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
  });

  it("opens a version's diff with the classifier's changes and the witness of the breaking one", async () => {
    await go('#/catalog');
    await page.waitForSelector('#catalog-results a[href="#/tool/bank.lookup/2.0.0"]');
    await page.click('#catalog-results a[href="#/tool/bank.lookup/2.0.0"]');
    await waitForText('#diff', '1.0.0 → 2.0.0', 'the classifier requires major', '$.inputSchema');
    const witness = JSON.parse(await textOf('#witness')) as Record<string, unknown>;
    expect(witness).not.toHaveProperty('branch');
    await shot('tool-diff');
  });

  it('deprecates a version with a sunset and successor after confirming; the live feed and the catalog follow', async () => {
    await go('#/tool/bank.lookup/1.0.0');
    await page.waitForSelector('#deprecate-reason');
    await page.type('#deprecate-reason', 'superseded by 2.0.0');
    await page.$eval('#deprecate-sunset', (e) => { (e as unknown as El).value = '2031-06-30'; });
    await page.select('#deprecate-replacement', '2.0.0');
    await page.click('#deprecate button[type=submit]');
    await waitForText('[role=alertdialog]', 'Deprecate bank.lookup@1.0.0, retiring on 2031-06-30, in favour of 2.0.0?');
    // Nothing happens before the confirmation.
    expect((await http('GET', `${stack.registryUrl}/v1/tools/bank.lookup/versions/1.0.0`, admin)).body).toMatchObject({ status: 'active' });
    await shot('tool-deprecate-confirm');
    await page.click('[role=alertdialog] button.danger');
    await waitForText('#contract-heading + dl', 'deprecated', '2031-06-30');
    expect((await http('GET', `${stack.registryUrl}/v1/tools/bank.lookup/versions/1.0.0`, admin)).body).toMatchObject({ status: 'deprecated', sunsetAt: '2031-06-30T00:00:00.000Z' });

    await go('#/feed');
    await waitForText('#feed-list', 'io.estate.tool.version.deprecated', 'bank.lookup@1.0.0', 'platform-admin');
    expect(await page.$eval('#feed-page-state', (e) => (e as unknown as El).dataset.state)).toBe('live');
    await shot('feed');

    await go('#/catalog');
    await waitForText('#catalog-results tr[data-tool="bank.lookup"][data-version="1.0.0"]', 'deprecated', 'sunset 2031-06-30');
  });

  it('retires a version only once confirmed; cancelling sends nothing', async () => {
    await go('#/tool/bank.lookup/1.0.0');
    await page.waitForSelector('#retire-reason');
    await page.type('#retire-reason', 'sunset brought forward');
    await page.click('#retire button[type=submit]');
    await waitForText('#retire [role=alertdialog]', 'Retire bank.lookup@1.0.0?');
    await page.click('#retire [role=alertdialog] button.secondary');
    expect(await page.$('#retire [role=alertdialog]')).toBeNull();
    expect((await http('GET', `${stack.registryUrl}/v1/tools/bank.lookup/versions/1.0.0`, admin)).body).toMatchObject({ status: 'deprecated' });
    await page.click('#retire button[type=submit]');
    await page.click('#retire [role=alertdialog] button.danger');
    await waitForText('#contract-heading + dl', 'retired');
    expect((await http('GET', `${stack.registryUrl}/v1/tools/bank.lookup/versions/1.0.0`, admin)).body).toMatchObject({ status: 'retired' });
    // A retired version offers no more actions.
    expect(await page.$('#deprecate')).toBeNull();
  });

  it('filters the audit trail, newest first, and shows the chain verification', async () => {
    await go('#/audit');
    await waitForText('#chain-status', 'Chain verified');
    await page.waitForSelector('#audit-table tbody tr');
    const seqs = await page.$$eval('#audit-table tbody tr', (rows) => rows.map((r) => Number(r.getAttribute('data-seq'))));
    expect(seqs.length).toBeGreaterThanOrEqual(5);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    await page.type('#audit-type', 'ToolVersionPublished');
    await page.type('#audit-tool', 'bank.lookup');
    await page.click('#audit-filters button[type=submit]');
    await page.waitForFunction(() => document.querySelectorAll('#audit-table tbody tr').length === 2, { timeout: 10000 });
    const rows = await page.$$eval('#audit-table tbody tr', (trs) => trs.map((tr) => Array.from((tr as unknown as El).querySelectorAll('td')).map((td) => td.textContent)));
    expect(rows.map((r) => [r[2], r[3], r[4]])).toEqual([['ToolVersionPublished', 'bank.lookup', '2.0.0'], ['ToolVersionPublished', 'bank.lookup', '1.0.0']]);
    await shot('audit');
  });

  it('loads the next page of the trail, on its cursor, when the end of the table scrolls into view', async () => {
    // 60 more events, hidden from every agent (no one holds bulk:read), so the trail holds more than a page of 50.
    const bulk: ToolSpec = { ...lookup, name: 'bank.bulk', requiredScopes: ['bulk:read'] };
    for (let patch = 0; patch < 60; patch += 1) {
      expect((await http('POST', `${stack.registryUrl}/v1/tools`, admin, { ...bulk, version: `1.0.${patch}` })).status).toBe(201);
    }
    await waitFor(async () => {
      const trail = await http('GET', `${stack.auditUrl}/v1/audit?tool=bank.bulk&limit=100`, admin);
      return (trail.body as { entries: unknown[] }).entries.length === 60 ? true : undefined;
    }, 'audit to record the 60 publishes');
    await page.$eval('#audit-type', (e) => { (e as unknown as El).value = ''; });
    await page.$eval('#audit-tool', (e) => { (e as unknown as El).value = 'bank.bulk'; });
    await page.click('#audit-filters button[type=submit]');
    await page.waitForFunction(() => document.querySelectorAll('#audit-table tbody tr').length === 50, { timeout: 20000 });
    await page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 1e9));
    await page.waitForFunction(() => document.querySelectorAll('#audit-table tbody tr').length === 60, { timeout: 20000 });
    const versions = await page.$$eval('#audit-table tbody tr td:nth-child(5)', (cells) => cells.map((c) => c.textContent));
    expect(versions).toEqual(Array.from({ length: 60 }, (_, i) => `1.0.${59 - i}`));
    await waitForText('#audit-status', '60 entries loaded; end of the trail');
  });

  it('shows what a principal would discover, through discovery, leaving out what it must not see', async () => {
    await go('#/principal');
    await page.waitForSelector('#principal-form');
    await page.$eval('#principal-id', (e) => { (e as unknown as El).value = 'teller-7'; });
    await page.type('#principal-scopes', 'bank:read');
    await page.select('#principal-clearance', 'internal');
    await page.click('#principal-form button[type=submit]');
    await waitForText('#principal-results', 'teller-7 sees', 'bank.lookup');
    const tools = await page.$$eval('#principal-results tr[data-tool]', (rows) => rows.map((r) => r.getAttribute('data-tool')));
    expect(tools).toContain('bank.lookup');
    expect(tools).not.toContain('bank.transfer');
    await shot('principal');
  });

  it('an agent token reads no governance: the console shows the services refusal', async () => {
    const agent = await token({ sub: 'support-agent', scope: 'bank:read', clearance: 'internal' });
    await page.click('#sign-out');
    await page.waitForSelector('#token', { visible: true });
    expect(await page.evaluate(() => sessionStorage.getItem('estate.token'))).toBeNull();
    await page.type('#token', agent);
    await page.click('#sign-in button[type=submit]');
    await go('#/catalog');
    await waitForText('#catalog-results', '403');
  });
});
