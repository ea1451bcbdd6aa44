import { catalogEntryText, catalogHeadText, catalogVersionRecordText, evolveCatalogEntry } from '@estate/catalog';
import type { Principal, ToolSpec } from '@estate/contracts';
import type { CatalogEntry, RegistryEvent } from '@estate/events';
import { createLogger, type BusMessage } from '@estate/platform';
import { CatalogReplica } from './catalog.replica';

type ToolEvent = Exclude<RegistryEvent, { type: 'ServerRegistered' }>;

const spec = (name: string, version: string): ToolSpec => ({
  name, version, description: `Tool ${name} ${version}.`, inputSchema: { type: 'object' }, sideEffect: 'read',
  requiredScopes: [], dataClassification: 'internal', tenants: [], owner: 'o', upstream: { server: 'bank', tool: name },
});
const reader: Principal = { id: 'reader', scopes: [], clearance: 'internal' };

/** Folds events as discovery does, and writes records as its publisher does (catalog.publisher.ts). */
function topic() {
  let offset = 0;
  let position = 0;
  const entries = new Map<string, CatalogEntry>();
  const message = (key: string, value: string | null): BusMessage => ({ topic: 'catalog', partition: 0, offset: String(offset++), key, value, headers: {} });
  return {
    fold(name: string, event: ToolEvent): CatalogEntry {
      position += 1;
      const entry = evolveCatalogEntry(entries.get(name), event, position, '2026-01-01T00:00:00Z', undefined);
      entries.set(name, entry);
      return entry;
    },
    /** The changed versions' records, then the head. */
    records(entry: CatalogEntry, changed: string[]): BusMessage[] {
      const versions = entry.versions.filter((v) => changed.includes(v.version)).map((v) => catalogVersionRecordText(entry, v));
      return [...versions, catalogHeadText(entry)].map(({ key, value }) => message(key, value));
    },
    message,
  };
}

const publish = (name: string, version: string): ToolEvent => ({ type: 'ToolVersionPublished', version: 1, data: { spec: spec(name, version), bump: 'minor', changes: [] } });
const visible = (replica: CatalogReplica): string[] => replica.visible(reader, {}).map((t) => `${t.entry.name}@${t.version.version}`);

describe('catalog replica: heads and version records', () => {
  it('puts entries back together from the changed versions and the head, equal to what discovery folded', async () => {
    const replica = new CatalogReplica(createLogger('assembly-spec', 'silent'), 0);
    const t = topic();
    const first = t.fold('bank.rates', publish('bank.rates', '1.0.0'));
    await replica.receiveBatch(t.records(first, ['1.0.0']));
    const second = t.fold('bank.rates', publish('bank.rates', '1.1.0'));
    await replica.receiveBatch(t.records(second, ['1.1.0']));
    const deprecated = t.fold('bank.rates', { type: 'ToolVersionDeprecated', version: 1, data: { name: 'bank.rates', version: '1.1.0', reason: 'use 2.x' } });
    await replica.receiveBatch(t.records(deprecated, ['1.1.0']));
    expect(replica.get('bank.rates')).toEqual(deprecated);
    expect(visible(replica)).toEqual(['bank.rates@1.0.0']);
  });

  it('keeps serving what it had while a head names a version not yet read, and shows it once the version comes', async () => {
    const replica = new CatalogReplica(createLogger('assembly-spec', 'silent'), 0);
    const t = topic();
    await replica.receiveBatch(t.records(t.fold('bank.rates', publish('bank.rates', '1.0.0')), ['1.0.0']));
    const next = t.fold('bank.rates', publish('bank.rates', '1.1.0'));
    const [version, head] = t.records(next, ['1.1.0']);
    await replica.receiveBatch([head]);
    expect(visible(replica)).toEqual(['bank.rates@1.0.0']);
    await replica.receiveBatch([version]);
    expect(visible(replica)).toEqual(['bank.rates@1.1.0']);
    expect(replica.get('bank.rates')).toEqual(next);
  });

  it('ignores a replayed older record of a version, and reads the whole entry an older discovery wrote', async () => {
    const replica = new CatalogReplica(createLogger('assembly-spec', 'silent'), 0);
    const t = topic();
    const first = t.fold('bank.rates', publish('bank.rates', '1.0.0'));
    const stale = t.records(first, ['1.0.0']);
    const quarantined = t.fold('bank.rates', { type: 'ToolQuarantined', version: 1, data: { name: 'bank.rates', version: '1.0.0', reason: 'drift' } });
    await replica.receiveBatch([...t.records(quarantined, ['1.0.0']), ...stale.map((m) => t.message(m.key as string, m.value))]);
    expect(visible(replica)).toEqual([]);
    expect(replica.get('bank.rates')?.versions[0].quarantined).toBe(true);

    const legacy = t.fold('bank.legacy', publish('bank.legacy', '2.0.0'));
    await replica.receiveBatch([t.message('bank.legacy', catalogEntryText(legacy))]);
    expect(replica.get('bank.legacy')).toEqual(legacy);
  });

  it('withdraws a tool whose head and version are tombstoned, and a head naming the missing version does not bring it back', async () => {
    const replica = new CatalogReplica(createLogger('assembly-spec', 'silent'), 0);
    const t = topic();
    const entry = t.fold('bank.rates', publish('bank.rates', '1.0.0'));
    await replica.receiveBatch(t.records(entry, ['1.0.0']));
    const [, head] = t.records(entry, ['1.0.0']);
    await replica.receiveBatch([t.message('bank.rates@1.0.0', null), t.message('bank.rates', null), head]);
    expect(replica.get('bank.rates')).toBeUndefined();
    expect(visible(replica)).toEqual([]);
  });

  it('dead-letters a version record whose key is not its tool and version', async () => {
    const replica = new CatalogReplica(createLogger('assembly-spec', 'silent'), 0);
    const t = topic();
    const entry = t.fold('bank.rates', publish('bank.rates', '1.0.0'));
    const [version, head] = t.records(entry, ['1.0.0']);
    await replica.receiveBatch([t.message('bank.other@1.0.0', version.value), head]);
    expect(replica.get('bank.rates')).toBeUndefined();
  });
});
