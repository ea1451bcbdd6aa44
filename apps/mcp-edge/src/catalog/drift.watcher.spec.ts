import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolSpec } from '@estate/contracts';
import type { CatalogEntry, EventEnvelope } from '@estate/events';
import { createLogger, InMemoryEventBus } from '@estate/platform';
import { CatalogReplica } from './catalog.replica';
import { DriftPublisher } from './drift.publisher';
import { DriftWatcher } from './drift.watcher';

const inputSchema = { type: 'object', properties: { reference: { type: 'string' } }, required: ['reference'] };
const spec: ToolSpec = {
  name: 'bank.lookup', version: '1.0.0', description: 'Looks up a payment.', inputSchema, sideEffect: 'read',
  requiredScopes: [], dataClassification: 'internal', tenants: [], owner: 'team', upstream: { server: 'bank', tool: 'lookup' },
};
const entry: CatalogEntry = {
  name: 'bank.lookup', position: 1,
  upstream: { server: 'bank', transport: 'streamable-http', url: 'http://x', allowSampling: false, allowElicitation: false },
  versions: [{ version: '1.0.0', status: 'active', quarantined: false, spec, publishedAt: '2026-01-01T00:00:00Z' }],
};
const served = (description: string): Tool[] => [{ name: 'lookup', description, inputSchema: inputSchema as Tool['inputSchema'] }];

describe('drift watcher (in-memory bus)', () => {
  const logger = createLogger('drift-spec', 'silent');

  async function setup() {
    const bus = new InMemoryEventBus();
    const seen: EventEnvelope[] = [];
    await bus.subscribe({ topic: 'estate.drift', groupId: 'g', fromBeginning: true, handle: async (m) => void seen.push(JSON.parse(m.value ?? 'null') as EventEnvelope) });
    const replica = new CatalogReplica(logger, 0);
    replica.apply('bank.lookup', entry);
    const publisher = new DriftPublisher(bus, 'estate.drift', logger);
    return { seen, replica, publisher, watcher: new DriftWatcher(replica, publisher, logger) };
  }

  it('hides a version whose upstream changed it and publishes one drift event for the registry, nothing while it agrees', async () => {
    const { seen, replica, publisher, watcher } = await setup();
    watcher.observe('bank', served('Looks up a payment.'));
    await publisher.flush();
    expect(seen).toEqual([]);
    watcher.observe('bank', served('Looks up a payment by IBAN.'));
    expect(replica.isQuarantined('bank.lookup', '1.0.0')).toBe(true);
    watcher.observe('bank', served('Looks up a payment by IBAN.'));
    await publisher.flush();
    expect(seen).toEqual([expect.objectContaining({
      type: 'ToolVersionDriftDetected', version: 1, actor: 'estate-edge', stream: 'tool:bank.lookup',
      data: { name: 'bank.lookup', version: '1.0.0', server: 'bank', upstreamTool: 'lookup', fields: ['description'], reason: expect.stringContaining('changed description') },
    })]);
    replica.flush();
  });

  it('handles an answer that broke the output schema after the call, not inside it', async () => {
    const { seen, replica, publisher, watcher } = await setup();
    watcher.outputBroken('bank.lookup', '1.0.0', ['/amount must be number']);
    expect(replica.isQuarantined('bank.lookup', '1.0.0')).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(replica.isQuarantined('bank.lookup', '1.0.0')).toBe(true);
    await publisher.flush();
    expect(seen.map((e) => (e.data as { fields: string[] }).fields)).toEqual([['outputSchema']]);
  });
});
