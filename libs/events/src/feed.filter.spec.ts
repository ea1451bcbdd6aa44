import { feedFilterAdmits, parseFeedFilter } from './feed.filter';

const TYPES = ['ToolVersionPublished', 'ToolVersionDeprecated', 'ToolVersionRetired'];

describe('feed filter', () => {
  it('parses tools, types in either naming, and a since position or time', () => {
    const parsed = parseFeedFilter({ tools: 'payments.*, crm.lookup', types: ['ToolVersionDeprecated', 'io.estate.tool.version.retired'], since: '42' }, TYPES);
    expect(parsed).toEqual({ ok: true, filter: { tools: ['payments.*', 'crm.lookup'], types: ['io.estate.tool.version.deprecated', 'io.estate.tool.version.retired'], sincePosition: 42 } });
    const byTime = parseFeedFilter({ since: '2026-11-30T10:00:00Z' }, TYPES);
    expect(byTime).toEqual({ ok: true, filter: { tools: [], types: [], sinceTime: '2026-11-30T10:00:00.000Z' } });
  });

  it('refuses bad input with the path of the offending entry', () => {
    expect(parseFeedFilter({ tools: ['ok', 'no spaces'] }, TYPES)).toMatchObject({ ok: false, path: 'tools[1]' });
    expect(parseFeedFilter({ types: 'ToolExploded' }, TYPES, 'filter.')).toMatchObject({ ok: false, path: 'filter.types[0]' });
    expect(parseFeedFilter({ since: 'yesterday' }, TYPES)).toMatchObject({ ok: false, path: 'since' });
    expect(parseFeedFilter({ tools: 7 }, TYPES)).toMatchObject({ ok: false, path: 'tools' });
  });

  it('admits by glob and type; a filter on tools never admits an event about no tool', () => {
    const parsed = parseFeedFilter({ tools: 'payments.*', types: 'ToolVersionDeprecated' }, TYPES);
    if (!parsed.ok) throw new Error('filter should parse');
    const { filter } = parsed;
    expect(feedFilterAdmits(filter, { type: 'io.estate.tool.version.deprecated', subject: 'payments.refund' })).toBe(true);
    expect(feedFilterAdmits(filter, { type: 'io.estate.tool.version.deprecated', subject: 'paymentsXrefund' })).toBe(false);
    expect(feedFilterAdmits(filter, { type: 'io.estate.tool.version.retired', subject: 'payments.refund' })).toBe(false);
    expect(feedFilterAdmits(filter, { type: 'io.estate.tool.version.deprecated' })).toBe(false);
    const all = parseFeedFilter({}, TYPES);
    expect(all.ok && feedFilterAdmits(all.filter, { type: 'io.estate.server.registered' })).toBe(true);
  });
});
