import type { ToolSpec } from '@estate/contracts';
import type { CatalogEntry } from '@estate/events';
import { createLogger, DeadLetterOffice, InMemoryEventBus, type BusMessage } from '@estate/platform';
import { CatalogReplica } from './catalog.replica';

const spec: ToolSpec = {
  name: 'bank.lookup', version: '1.0.0', description: 'Looks up.', inputSchema: { type: 'object' }, sideEffect: 'read',
  requiredScopes: [], dataClassification: 'internal', tenants: [], owner: 'o', upstream: { server: 'bank', tool: 'lookup' },
};
const entry: CatalogEntry = {
  name: 'bank.lookup',
  upstream: { server: 'bank', transport: 'streamable-http', url: 'http://127.0.0.1:1/', allowSampling: false, allowElicitation: false },
  versions: [{ version: '1.0.0', status: 'active', quarantined: false, spec, publishedAt: '2026-01-01T00:00:00Z' }],
  position: 1,
};

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(check()).toBe(true);
}

describe('catalog replica: a record it cannot apply', () => {
  it('goes to the dead-letter topic with its reason, and the replica applies what follows', async () => {
    const bus = new InMemoryEventBus();
    const letters: BusMessage[] = [];
    await bus.subscribe({ topic: 'dlq', groupId: 'watch', fromBeginning: true, handle: async (m) => void letters.push(m) });
    const office = new DeadLetterOffice(bus, 'dlq', 'mcp-edge', createLogger('replica-dlq-spec', 'silent'));
    const replica = new CatalogReplica(createLogger('replica-dlq-spec', 'silent'), 0);
    await replica.start(bus, 'catalog', 'edge-1', office);
    await bus.publish('catalog', [
      { key: 'bank.lookup', value: '{"name":' },
      { key: 'bank.lookup', value: JSON.stringify({ ...entry, versions: [{ version: '1.0.0' }] }) },
      { key: 'bank.other', value: JSON.stringify(entry) },
      { key: 'bank.lookup', value: JSON.stringify(entry) },
    ]);
    await until(() => replica.get('bank.lookup') !== undefined && letters.length === 3);
    expect(letters.map((m) => (JSON.parse(m.value as string) as { reason: string }).reason)).toEqual([
      'not JSON',
      'versions[0]: "version" and "status" must be strings',
      '"name" differs from the record key',
    ]);
    expect(replica.get('bank.other')).toBeUndefined();
    expect(office.count).toBe(3);
    await replica.stop();
    await bus.close();
  });
});
