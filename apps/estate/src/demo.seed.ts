import { startBankServer, type BankServerHandle } from '../../../examples/bank/bank.server';
import { bankSpecs } from '../../../examples/bank/bank.specs';
import type { Logger } from '@estate/platform';

/**
 * First-run content: the sample bank upstream, registered and its three tools published through
 * the registry's own API (a re-run finds them already there and changes nothing). A demo that
 * cannot start is a warning, never a failed estate.
 */
export async function seedDemo(registryUrl: string, adminToken: string, bankPort: number, logger: Logger): Promise<BankServerHandle | undefined> {
  const log = logger.child({ service: 'bank' });
  const call = (method: string, route: string, body?: unknown) =>
    fetch(`${registryUrl}${route}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const registered = await registeredPort(await call('GET', '/v1/servers/bank'));
  const bank = await startBank(registered ?? bankPort, registered !== undefined, log);
  if (!bank) return undefined;
  if (registered === undefined) {
    const answer = await call('POST', '/v1/servers', { name: 'bank', url: bank.url, owner: 'payments-team' });
    if (!answer.ok) log.warn({ status: answer.status, body: await answer.text() }, 'demo: bank server not registered');
  }
  for (const spec of bankSpecs('bank')) {
    const published = await call('POST', '/v1/tools', spec);
    if (!published.ok && published.status !== 409) log.warn({ tool: spec.name, status: published.status, body: await published.text() }, 'demo: tool not published');
  }
  return bank;
}

/** The port of the bank registered by an earlier run: a registration's URL cannot change, so the bank comes back on it. */
async function registeredPort(answer: Response): Promise<number | undefined> {
  if (!answer.ok) return undefined;
  const { url } = (await answer.json()) as { url?: unknown };
  const port = typeof url === 'string' ? Number(new URL(url).port) : NaN;
  return Number.isInteger(port) && port > 0 ? port : undefined;
}

/**
 * The bank on `port`; when that port is taken, a fresh bank moves to a free one (and is registered
 * there), while one already registered cannot move: its tools stay unreachable until the port is free.
 */
async function startBank(port: number, registered: boolean, log: Logger): Promise<BankServerHandle | undefined> {
  try {
    return await startBankServer({ port, logger: log });
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'EADDRINUSE') throw error;
    if (registered) {
      log.warn({ port }, `demo: port ${port}, where an earlier run registered the bank, is taken; bank.* calls fail until it is free and the estate restarts`);
      return undefined;
    }
    const bank = await startBankServer({ port: 0, logger: log });
    log.warn({ port, now: bank.port }, `demo: BANK_PORT ${port} is taken; the bank listens on ${bank.port} instead (and is registered there)`);
    return bank;
  }
}
