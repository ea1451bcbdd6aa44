import { createServer, type Server } from 'node:net';
import { createLogger, InMemoryEventBus } from '@estate/platform';
import { createTestDatabase, freePort } from '../../../test/support/infra';
import { composeEstate } from './estate.composition';

const SECRET = 'composition-test-secret-0123456789';

/** Whether anything accepts connections on the port. */
function listening(port: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}/healthz`).then(() => true, () => false);
}

describe('composeEstate (real PostgreSQL, in-process bus)', () => {
  it('starts only the services asked for, wires discovery to the registry it started, and stops them all', async () => {
    const db = await createTestDatabase();
    const bus = new InMemoryEventBus();
    const [registryPort, discoveryPort, auditPort] = [await freePort(), await freePort(), await freePort()];
    const env = {
      ESTATE_JWT_SECRET: SECRET, ESTATE_REGISTRY_PORT: String(registryPort), ESTATE_DISCOVERY_PORT: String(discoveryPort), ESTATE_AUDIT_PORT: String(auditPort),
    };
    try {
      const estate = await composeEstate({ env, databaseUrl: db.url, logger: createLogger('composition', process.env.LOG_LEVEL ?? 'error'), bus, services: ['registry', 'discovery'] });
      expect([estate.registry?.url, estate.discovery?.url, estate.audit, estate.edge, estate.console]).toEqual([
        `http://127.0.0.1:${registryPort}`, `http://127.0.0.1:${discoveryPort}`, undefined, undefined, undefined,
      ]);
      expect(await listening(auditPort)).toBe(false);
      await estate.stop();
      expect([await listening(registryPort), await listening(discoveryPort)]).toEqual([false, false]);
    } finally {
      await db.drop();
    }
  });

  it('a service that cannot start stops the ones started before it and reports why', async () => {
    const db = await createTestDatabase();
    const taken: Server = createServer();
    const auditPort = await freePort();
    await new Promise<void>((resolve) => taken.listen(auditPort, '127.0.0.1', resolve));
    const registryPort = await freePort();
    const env = { ESTATE_JWT_SECRET: SECRET, ESTATE_REGISTRY_PORT: String(registryPort), ESTATE_DISCOVERY_PORT: '0', ESTATE_AUDIT_PORT: String(auditPort) };
    try {
      await expect(
        composeEstate({ env, databaseUrl: db.url, logger: createLogger('composition', 'silent'), bus: new InMemoryEventBus(), services: ['registry', 'discovery', 'audit'] }),
      ).rejects.toThrow(/EADDRINUSE/);
      expect(await listening(registryPort)).toBe(false);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
      await db.drop();
    }
  });
});
