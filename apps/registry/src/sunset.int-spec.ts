import { createLogger, InMemoryEventBus, issueDevToken } from '@estate/platform';
import type { EventEnvelope } from '@estate/events';
import { bankSpecs } from '../../../examples/bank/bank.specs';
import { createTestDatabase } from '../../../test/support/infra';
import { loadRegistryConfig } from './config';
import { startRegistry } from './registry.app';
import { SunsetHandler } from './sunset/sunset.handler';

const SECRET = 'sunset-test-secret-0123456789';

describe('sunset dates are enforced (real PostgreSQL)', () => {
  it('retires a deprecated version once its sunset has passed, and says so on the bus', async () => {
    const db = await createTestDatabase();
    const bus = new InMemoryEventBus();
    const seen: EventEnvelope[] = [];
    await bus.subscribe({ topic: 'estate.registry.events', groupId: 'test', fromBeginning: true, handle: async (m) => void seen.push(JSON.parse(m.value ?? 'null') as EventEnvelope) });
    const registry = await startRegistry({ ...loadRegistryConfig({ ESTATE_JWT_SECRET: SECRET, ESTATE_REGISTRY_PORT: '0' }), databaseUrl: db.url }, bus, createLogger('sunset', 'error'));
    try {
      const token = await issueDevToken(SECRET, { sub: 'ops', scope: 'estate:admin estate:publish' });
      const post = (route: string, body: unknown) => fetch(`${registry.url}${route}`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body),
      });
      expect((await post('/v1/servers', { name: 'bank', url: 'http://127.0.0.1:9/mcp', owner: 'ops' })).status).toBe(201);
      const [lookup] = bankSpecs('bank');
      expect((await post('/v1/tools', lookup)).status).toBe(201);
      expect((await post('/v1/tools', { ...lookup, version: '1.0.1', title: 'Find a payment' })).status).toBe(201);
      const sunsetAt = '2036-01-01T00:00:00.000Z';
      expect((await post('/v1/tools/bank.lookup/versions/1.0.0/deprecate', { reason: 'use 1.0.1', sunsetAt, replacement: '1.0.1' })).status).toBe(200);

      expect(await registry.useCase(SunsetHandler).sweep(new Date('2035-12-31T00:00:00.000Z'))).toBe(0);
      expect(await registry.useCase(SunsetHandler).sweep(new Date('2036-01-02T00:00:00.000Z'))).toBe(1);
      expect(await registry.useCase(SunsetHandler).sweep(new Date('2036-01-03T00:00:00.000Z'))).toBe(0);

      const version = await fetch(`${registry.url}/v1/tools/bank.lookup/versions/1.0.0`, { headers: { authorization: `Bearer ${token}` } });
      expect(await version.json()).toMatchObject({ status: 'retired' });
      const deadline = Date.now() + 5000;
      while (!seen.some((e) => e.type === 'ToolVersionRetired') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(seen.filter((e) => e.stream === 'tool:bank.lookup').map((e) => e.type)).toEqual([
        'ToolVersionPublished', 'ToolVersionPublished', 'ToolVersionDeprecated', 'ToolVersionSunsetReached', 'ToolVersionRetired',
      ]);
    } finally {
      await registry.stop();
      await bus.close();
      await db.drop();
    }
  });
});
