import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { ADMIN, connect, http, token, waitFor } from './support/estate.harness';
import { estateSuite, postgresOf, signalGroup, untilRunning, within, type EstateProcess } from './support/lifecycle.harness';

const AGENT = { sub: 'support-agent', scope: 'bank:read', clearance: 'internal' };

async function takePort(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

/** The demo bank `npm start` runs beside the estate (ESTATE_DEMO=1, BANK_PORT). */
describe('npm start with the demo bank', () => {
  const suite = estateSuite('estate-demo-');

  const bankLookupWorks = async (estate: EstateProcess) => {
    const session = await connect(estate.mcpUrl, await token(AGENT));
    try {
      await waitFor(async () => ((await session.client.listTools()).tools.some((t) => t.name === 'bank.lookup') ? true : undefined), 'bank.lookup to be listed', 30_000);
      const result = await session.client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-771' } });
      return result.isError === true ? JSON.stringify(result.content) : 'ok';
    } finally {
      await session.close().catch(() => undefined);
    }
  };

  it('starts the bank on a free port when BANK_PORT is taken, and brings it back on its registered port after a restart', async () => {
    const taken = await takePort();
    try {
      const first = await suite.spawn({ ESTATE_DEMO: '1', BANK_PORT: String(taken.port) });
      await untilRunning(first);
      expect(first.output()).toContain(`BANK_PORT ${taken.port} is taken`);
      const registered = (await http('GET', `${first.registryUrl}/v1/servers/bank`, await token(ADMIN))).body as { url: string };
      expect(new URL(registered.url).port).not.toBe(String(taken.port));
      expect(await bankLookupWorks(first)).toBe('ok');
      expect((await signalGroup(first, 'SIGINT')).result).toEqual({ code: 0, signal: null });

      // BANK_PORT=0 (any port) on the restart: the registration cannot change its URL, so the bank takes that port again.
      const second = await suite.spawn({ ESTATE_DEMO: '1', BANK_PORT: '0' });
      await untilRunning(second);
      expect(second.output()).not.toContain('not registered');
      expect(await bankLookupWorks(second)).toBe('ok');
      expect((await signalGroup(second, 'SIGINT')).result).toEqual({ code: 0, signal: null });
    } finally {
      taken.server.close();
    }
  }, 240_000);

  it('a start that fails once PostgreSQL is up leaves no estate.json, no owner file and no PostgreSQL behind', async () => {
    const taken = await takePort();
    try {
      const estate = await suite.spawn({ ESTATE_DEMO: '0', ESTATE_CONSOLE_PORT: String(taken.port) });
      expect((await estate.exited).code).toBe(1);
      expect(estate.output()).toContain('EADDRINUSE');
      await within(5000, 'nothing left running', () => postgresOf(suite.dataDir).length === 0);
      expect({ record: existsSync(path.join(suite.dataDir, 'estate.json')), owner: existsSync(path.join(suite.dataDir, 'pg.owner.json')) }).toEqual({ record: false, owner: false });
    } finally {
      taken.server.close();
    }
  }, 120_000);
});
