import type { CatalogEntry, ToolVersionPublished } from '@estate/events';
import { bankSpecs } from '../../../examples/bank/bank.specs';
import { evolveCatalogEntry } from './catalog.projection';

const [lookup] = bankSpecs('bank');
const published = (version: string): ToolVersionPublished => ({ type: 'ToolVersionPublished', version: 1, data: { spec: { ...lookup, version }, bump: 'minor', changes: [] } });

describe('catalog entry versions', () => {
  it('keeps versions in numeric semver order whatever order they were published in', () => {
    // Not newest-last: an older line gets a patch after a newer major, and 1.10 sorts after 1.9 (not as text).
    const order = ['1.2.0', '1.9.1', '2.0.0', '1.10.0', '1.9.2', '0.1.0'];
    let entry: CatalogEntry | undefined;
    order.forEach((version, position) => {
      entry = evolveCatalogEntry(entry, published(version), position, '2026-01-01T00:00:00.000Z', undefined);
    });
    expect(entry?.versions.map((v) => v.version)).toEqual(['0.1.0', '1.2.0', '1.9.1', '1.9.2', '1.10.0', '2.0.0']);
  });

  it('replaces a version published again rather than listing it twice', () => {
    const first = evolveCatalogEntry(undefined, published('1.0.0'), 0, '2026-01-01T00:00:00.000Z', undefined);
    const again = evolveCatalogEntry(evolveCatalogEntry(first, published('1.1.0'), 1, '2026-01-02T00:00:00.000Z', undefined), published('1.0.0'), 2, '2026-01-03T00:00:00.000Z', undefined);
    expect(again.versions.map((v) => [v.version, v.publishedAt])).toEqual([['1.0.0', '2026-01-03T00:00:00.000Z'], ['1.1.0', '2026-01-02T00:00:00.000Z']]);
  });
});
