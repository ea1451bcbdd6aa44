import { startBankServer } from '../../../examples/bank/bank.server';
import { bankSpecs } from '../../../examples/bank/bank.specs';
import type { Logger } from '@estate/platform';

/**
 * First-run content: the sample bank upstream, registered and its three tools published through
 * the registry's own API (a re-run finds them already there and changes nothing).
 */
export async function seedDemo(registryUrl: string, adminToken: string, bankPort: number, logger: Logger) {
  const bank = await startBankServer({ port: bankPort, logger: logger.child({ service: 'bank' }) });
  const post = (route: string, body: unknown) =>
    fetch(`${registryUrl}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
      body: JSON.stringify(body),
    });
  const registered = await post('/v1/servers', { name: 'bank', url: bank.url, owner: 'payments-team' });
  if (!registered.ok) logger.warn({ status: registered.status, body: await registered.text() }, 'demo: bank server not registered');
  for (const spec of bankSpecs('bank')) {
    const published = await post('/v1/tools', spec);
    if (!published.ok && published.status !== 409) logger.warn({ tool: spec.name, status: published.status, body: await published.text() }, 'demo: tool not published');
  }
  return bank;
}
