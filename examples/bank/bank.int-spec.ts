import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type BankServerHandle, startBankServer } from './bank.server';

describe('bank sample upstream (Streamable HTTP)', () => {
  let bank: BankServerHandle;
  let client: Client;

  beforeAll(async () => {
    bank = await startBankServer({ port: 0 });
    client = new Client({ name: 'bank-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(bank.url)));
  });

  afterAll(async () => {
    await client?.close();
    await bank?.close();
  });

  beforeEach(() => bank.resetStats());

  it('lists the three tools with their JSON Schemas and side-effect hints', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['lookup', 'release', 'transfer']);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.lookup.inputSchema).toMatchObject({
      type: 'object',
      properties: { reference: { type: 'string', pattern: '^PMT-[0-9]+$' } },
      required: ['reference'],
    });
    expect(byName.lookup.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.transfer.inputSchema).toMatchObject({
      properties: {
        amount: { type: 'integer', minimum: 1 },
        currency: { enum: ['EUR', 'USD', 'GBP', 'CHF'] },
      },
    });
    expect(byName.release.annotations).toMatchObject({ destructiveHint: true });
    expect(bank.stats().total).toBe(0); // listing is not a call
  });

  it('answers lookup with text JSON and structuredContent, and counts the call', async () => {
    const res = await client.callTool({ name: 'lookup', arguments: { reference: 'PMT-1042' } });
    expect(res.isError).toBeFalsy();
    const structured = res.structuredContent as Record<string, unknown>;
    expect(structured).toMatchObject({ reference: 'PMT-1042', currency: expect.any(String) });
    expect(typeof structured.amount).toBe('number');
    const text = (res.content as Array<{ type: string; text: string }>)[0].text;
    expect(JSON.parse(text)).toEqual(structured);
    expect(bank.stats()).toEqual({ calls: { lookup: 1, transfer: 0, release: 0 }, total: 1 });

    const stats = await fetch(new URL('/stats', bank.url)).then((r) => r.json());
    expect(stats).toEqual({ calls: { lookup: 1, transfer: 0, release: 0 }, total: 1 });
    await fetch(new URL('/stats/reset', bank.url), { method: 'POST' });
    expect(bank.stats().total).toBe(0);
  });

  it('transfers, releases, and reports an unknown payment as a tool error', async () => {
    const t = await client.callTool({
      name: 'transfer',
      arguments: { from: 'ACC-1', to: 'ACC-2', amount: 500, currency: 'EUR' },
    });
    expect((t.structuredContent as { confirmation: string }).confirmation).toMatch(/^TRF-/);
    const r = await client.callTool({ name: 'release', arguments: { reference: 'PMT-7' } });
    expect(r.structuredContent).toEqual({ reference: 'PMT-7', status: 'released' });
    const missing = await client.callTool({ name: 'lookup', arguments: { reference: 'PMT-0' } });
    expect(missing.isError).toBe(true);
    expect(bank.stats()).toEqual({ calls: { lookup: 1, transfer: 1, release: 1 }, total: 3 });
  });

  it('counts a call that arrives even when its arguments are invalid', async () => {
    const res = await client.callTool({ name: 'lookup', arguments: { reference: 'nope' } });
    expect(res.isError).toBe(true);
    expect(bank.stats().calls.lookup).toBe(1);
  });

  it('refuses a request without a session that is not initialize', async () => {
    const res = await fetch(bank.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(400);
  });
});

describe('bank sample upstream (stdio)', () => {
  it('serves the same tools over stdio with a clean stdout', async () => {
    const root = path.resolve(__dirname, '..', '..');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['-r', '@swc-node/register', path.join(__dirname, 'main.ts'), '--stdio'],
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'info' } as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'bank-stdio-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(3);
      const res = await client.callTool({ name: 'lookup', arguments: { reference: 'PMT-5' } });
      expect(res.structuredContent).toMatchObject({ reference: 'PMT-5' });
    } finally {
      await client.close();
    }
  });
});
