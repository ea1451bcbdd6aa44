import type { Principal } from '@estate/contracts';
import { createLogger } from '@estate/platform';
import { AsOfDiscovery } from './as-of.discovery';

const logger = createLogger('as-of-spec', 'silent');
const agent: Principal = { id: 'agent', scopes: ['bank:read'], clearance: 'internal' };
const admin: Principal = { id: 'root', scopes: ['estate:admin'], clearance: 'restricted' };
const empty = { count: async () => 0, read: async (after: string) => ({ events: [], next: after }) };

describe('discovery at an instant: who may ask, and without a store', () => {
  it('lets an agent ask only for itself, and an admin for anyone', async () => {
    const asOf = new AsOfDiscovery(empty, logger);
    expect(await asOf.discover(agent, { at: 0, principal: { ...admin, id: 'other' } })).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    // Naming itself with wider rights still answers with its own token's rights.
    const own = await asOf.discover(agent, { at: 0, principal: { ...admin, id: 'agent' } });
    expect(own).toMatchObject({ ok: true, value: { principal: 'agent', tools: [] } });
    // The store's counts cover changes hidden from the agent: only an admin is told them.
    expect(own.ok && [own.value.events, own.value.lastEventAt]).toEqual([undefined, undefined]);
    expect(await asOf.discover(admin, { at: 0, principal: { ...agent, id: 'other' } })).toMatchObject({ ok: true, value: { principal: 'other', at: '1970-01-01T00:00:00.000Z', events: 0, lastEventAt: null } });
  });

  it('answers 503-class errors without a registry or when the store cannot be read, naming nothing of it', async () => {
    expect(await new AsOfDiscovery(undefined, logger).discover(agent, { at: 0 })).toMatchObject({ ok: false, error: { code: 'REBUILD_UNAVAILABLE', message: expect.stringContaining('ESTATE_REGISTRY_URL') } });
    const down = { count: async () => 0, read: async () => { throw new Error('connect ECONNREFUSED 10.0.0.7:8001'); } };
    const answer = await new AsOfDiscovery(down, logger).discover(agent, { at: 0 });
    expect(answer).toMatchObject({ ok: false, error: { code: 'REBUILD_UNAVAILABLE' } });
    expect(JSON.stringify(answer)).not.toContain('10.0.0.7');
  });
});
