import type { CatalogEntry, RegistryEvent, ServerRegisteredData } from '@estate/events';
import { bankSpecs } from '../../../examples/bank/bank.specs';
import { catalogEntryText, parseCatalogVersion } from './catalog-entry.text';
import { evolveCatalogEntry, withUpstream } from './catalog.projection';

const [lookup] = bankSpecs('bank');
type ToolEvent = Exclude<RegistryEvent, { type: 'ServerRegistered' }>;
const published = (version: string): ToolEvent => ({ type: 'ToolVersionPublished', version: 1, data: { spec: { ...lookup, version }, bump: 'minor', changes: [] } });
const deprecated = (version: string): ToolEvent => ({ type: 'ToolVersionDeprecated', version: 1, data: { name: lookup.name, version, reason: 'old "one"', sunsetAt: undefined } });
const server: ServerRegisteredData = { name: 'bank', namespace: 'bank', url: 'http://127.0.0.1:9/mcp', owner: 'ops', transport: 'streamable-http', allowSampling: false, allowElicitation: true };

describe('catalog entry text', () => {
  it('is JSON.stringify of the entry after every step of a fold, texts of unchanged versions reused', () => {
    const events = [published('1.0.0'), published('1.1.0'), deprecated('1.0.0'), published('1.0.1'), published('1.1.0')];
    let entry: CatalogEntry | undefined;
    events.forEach((event, position) => {
      entry = evolveCatalogEntry(entry, event, position, `2026-01-0${position + 1}T00:00:00.000Z`, undefined);
      expect(catalogEntryText(entry)).toBe(JSON.stringify(entry));
    });
    const moved = withUpstream(entry as CatalogEntry, server);
    expect(catalogEntryText(moved)).toBe(JSON.stringify(moved));
  });

  it('gives back the stored text of a version read from it, and stays equal to JSON.stringify for an entry built from such versions', () => {
    const text = '{"version":"1.0.0","status":"active","quarantined":false,"spec":{"name":"x"},"publishedAt":"2026-01-01T00:00:00.000Z"}';
    const version = parseCatalogVersion(text);
    const entry = { name: 'x', upstream: { server: 'bank', transport: 'streamable-http', allowSampling: false, allowElicitation: false }, versions: [version], position: 3 } as CatalogEntry;
    expect(catalogEntryText(entry)).toBe(JSON.stringify(entry));
    expect(catalogEntryText({ ...entry, versions: [] })).toBe(JSON.stringify({ ...entry, versions: [] }));
  });
});
