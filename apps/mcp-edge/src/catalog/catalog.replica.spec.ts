import { evolveCatalogEntry } from '@estate/catalog';
import type { Principal, ToolSpec } from '@estate/contracts';
import type { CatalogEntry, RegistryEvent } from '@estate/events';
import { createLogger } from '@estate/platform';
import { listToolPage } from '../mcp/tool-list';
import { CatalogReplica } from './catalog.replica';

type ToolEvent = Exclude<RegistryEvent, { type: 'ServerRegistered' }>;

const spec = (name: string, version: string, facts: Partial<ToolSpec> = {}): ToolSpec => ({
  name, version, description: `Tool ${name}.`, inputSchema: { type: 'object' }, sideEffect: 'read',
  requiredScopes: [], dataClassification: 'internal', tenants: [], owner: 'o', upstream: { server: 'bank', tool: name },
  ...facts,
});
const published = (s: ToolSpec): ToolEvent => ({ type: 'ToolVersionPublished', version: 1, data: { spec: s, bump: 'initial', changes: [] } });
const reader: Principal = { id: 'reader', scopes: ['bank:read'], clearance: 'internal' };

/** Each test folds registry events the way discovery does and feeds the replica the result. */
function catalog(): { replica: CatalogReplica; fold: (event: ToolEvent) => void } {
  const replica = new CatalogReplica(createLogger('replica-spec', 'silent'), 0);
  let position = 0;
  const fold = (event: ToolEvent): void => {
    position += 1;
    const name = event.type === 'ToolVersionPublished' ? event.data.spec.name : event.data.name;
    const entry: CatalogEntry = evolveCatalogEntry(replica.get(name), event, position, '2026-01-01T00:00:00Z', undefined);
    replica.apply(name, entry);
  };
  return { replica, fold };
}

const listed = (replica: CatalogReplica, principal: Principal, pins: Record<string, string> = {}): string[] =>
  listToolPage(replica.all(), principal, pins, undefined).tools.map((t) => `${t.name}@${t.description}`);
const versions = (replica: CatalogReplica, principal: Principal, pins: Record<string, string> = {}): string[] =>
  replica.visible(principal, pins).map((t) => `${t.entry.name}@${t.version.version}`);

describe('catalog replica: cached tools/list stays exact', () => {
  it('shows a publish, a deprecation, a retirement and a quarantine on the very next list', () => {
    const { replica, fold } = catalog();
    fold(published(spec('bank.balance', '1.0.0')));
    expect(versions(replica, reader)).toEqual(['bank.balance@1.0.0']);

    fold(published(spec('bank.balance', '1.1.0')));
    fold(published(spec('bank.rates', '1.0.0')));
    expect(versions(replica, reader)).toEqual(['bank.balance@1.1.0', 'bank.rates@1.0.0']);

    fold({ type: 'ToolVersionDeprecated', version: 1, data: { name: 'bank.balance', version: '1.1.0', reason: 'use 2.x' } });
    expect(versions(replica, reader)).toEqual(['bank.balance@1.0.0', 'bank.rates@1.0.0']);

    fold({ type: 'ToolVersionRetired', version: 1, data: { name: 'bank.balance', version: '1.0.0', reason: 'gone' } });
    expect(versions(replica, reader)).toEqual(['bank.rates@1.0.0']);

    fold({ type: 'ToolQuarantined', version: 1, data: { name: 'bank.rates', version: '1.0.0', reason: 'drift' } });
    expect(versions(replica, reader)).toEqual([]);
  });

  it('hides a version this edge quarantined itself from the next list', () => {
    const { replica, fold } = catalog();
    fold(published(spec('bank.balance', '1.0.0')));
    fold(published(spec('bank.balance', '1.1.0')));
    expect(versions(replica, reader)).toEqual(['bank.balance@1.1.0']);
    replica.quarantineLocally('bank.balance', '1.1.0');
    expect(versions(replica, reader)).toEqual(['bank.balance@1.0.0']);
  });

  it('drops a tool whose record is deleted from the topic', () => {
    const { replica, fold } = catalog();
    fold(published(spec('bank.balance', '1.0.0')));
    expect(listed(replica, reader)).toEqual(['bank.balance@Tool bank.balance.']);
    replica.apply('bank.balance', undefined);
    expect(listed(replica, reader)).toEqual([]);
  });

  it('never hands one principal the list of another with different scopes, tenant, clearance or pins', () => {
    const { replica, fold } = catalog();
    fold(published(spec('bank.open', '1.0.0')));
    fold(published(spec('bank.open', '2.0.0')));
    fold(published(spec('bank.scoped', '1.0.0', { requiredScopes: ['bank:write'] })));
    fold(published(spec('bank.acme', '1.0.0', { tenants: ['acme'] })));
    fold(published(spec('bank.secret', '1.0.0', { dataClassification: 'restricted' })));

    // Each principal asks right after another whose list is already cached.
    expect(versions(replica, reader)).toEqual(['bank.open@2.0.0']);
    expect(versions(replica, { ...reader, scopes: ['bank:read', 'bank:write'] })).toEqual(['bank.open@2.0.0', 'bank.scoped@1.0.0']);
    expect(versions(replica, { ...reader, tenant: 'acme' })).toEqual(['bank.acme@1.0.0', 'bank.open@2.0.0']);
    expect(versions(replica, { ...reader, tenant: 'other' })).toEqual(['bank.open@2.0.0']);
    expect(versions(replica, { ...reader, clearance: 'restricted' })).toEqual(['bank.open@2.0.0', 'bank.secret@1.0.0']);
    expect(versions(replica, reader, { 'bank.open': '^1.0.0' })).toEqual(['bank.open@1.0.0']);
    expect(versions(replica, reader, { 'bank.open': '^2.0.0' })).toEqual(['bank.open@2.0.0']);
    expect(versions(replica, reader)).toEqual(['bank.open@2.0.0']);
  });

  it('gives principals that differ only in id, scope order or duplicates the same list', () => {
    const { replica, fold } = catalog();
    fold(published(spec('bank.scoped', '1.0.0', { requiredScopes: ['a', 'b'] })));
    const first = replica.visible({ id: 'one', scopes: ['a', 'b'], clearance: 'internal' }, {});
    const second = replica.visible({ id: 'two', scopes: ['b', 'a', 'b'], clearance: 'internal' }, {});
    expect(second).toBe(first);
    expect(second.map((t) => t.entry.name)).toEqual(['bank.scoped']);
  });

  it('shares one read-only page between sessions that see the same tools, and builds a new one after a change', () => {
    const { replica, fold } = catalog();
    fold(published(spec('bank.balance', '1.0.0')));
    const first = listToolPage(replica.all(), reader, {}, undefined);
    expect(listToolPage(replica.all(), { ...reader, id: 'another reader' }, {}, undefined)).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.tools)).toBe(true);
    fold(published(spec('bank.rates', '1.0.0')));
    const next = listToolPage(replica.all(), reader, {}, undefined);
    expect(next.tools.map((t) => t.name)).toEqual(['bank.balance', 'bank.rates']);
    expect(first.tools.map((t) => t.name)).toEqual(['bank.balance']);
  });
});

describe('catalog replica: when listeners hear of a Kafka batch', () => {
  const record = (name: string, version: string, offset: number) => {
    const entry = evolveCatalogEntry(undefined, published(spec(name, version)), offset + 1, '2026-01-01T00:00:00Z', undefined);
    return { topic: 'catalog', partition: 0, offset: String(offset), key: name, value: JSON.stringify(entry), headers: {} };
  };

  it('hands a batch over once, as soon as it is applied, after a quiet window; a batch within the window waits for its end', async () => {
    const replica = new CatalogReplica(createLogger('replica-spec', 'silent'), 50);
    const heard: string[][] = [];
    replica.onChange((changes) => heard.push(changes.map((c) => c.name)));
    await replica.receiveBatch([record('bank.balance', '1.0.0', 0), record('bank.transfer', '1.0.0', 1)]);
    // No timer turn in between: the change is out when the batch is.
    expect(heard).toEqual([['bank.balance', 'bank.transfer']]);
    await replica.receiveBatch([record('bank.close', '1.0.0', 2)]);
    expect(heard).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(heard).toEqual([['bank.balance', 'bank.transfer'], ['bank.close']]);
  });
});
