import { feedFilterAdmits, isToolPattern, parseFeedFilter, TOOL_PATTERN_RULE } from './feed.filter';

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

describe('tool patterns of the change feed', () => {
  it.each(['bank.lookup', 'bank', 'a_b-c.d', 'x'.repeat(128), '*', 'bank*', 'bank.*', 'bank.tr*', 'payments.eu.*', 'a-b_c.d*'])('accepts %s', (pattern) => {
    expect(isToolPattern(pattern)).toBe(true);
  });

  it.each([
    'qa..*', '.*', 'bank.*.*', '*.lookup', 'a*b', '**', 'bank.*x', `${'x'.repeat(128)}*`, 'x'.repeat(129), 'bad name', 'bank.look up',
  ])('refuses %s', (pattern) => {
    expect(isToolPattern(pattern)).toBe(false);
  });

  it('accepts as a name anything the registry could publish under that name, odd as it may be', () => {
    // TOOL_NAME_PATTERN (and the namespace rule: `qa.` then anything) admits these, so a subscriber must be able to name them.
    expect(['qa..x', 'qa.x.', 'qa-'].map(isToolPattern)).toEqual([true, true, true]);
  });
});

describe('parseFeedFilter, the stricter rules', () => {
  it('reads a since time in any zone as the instant it names', () => {
    expect(parseFeedFilter({ tools: 'bank.*,bank.lookup', types: 'ToolVersionRetired', since: '2026-12-02T03:00:00+01:00' }, TYPES)).toEqual({
      ok: true, filter: { tools: ['bank.*', 'bank.lookup'], types: ['io.estate.tool.version.retired'], sinceTime: '2026-12-02T02:00:00.000Z' },
    });
    expect(parseFeedFilter({ since: '42' }, TYPES)).toEqual({ ok: true, filter: { tools: [], types: [], sincePosition: 42 } });
  });

  it('names the malformed glob by its index, under the given base', () => {
    expect(parseFeedFilter({ tools: 'bank.*,qa..*' }, TYPES)).toEqual({ ok: false, path: 'tools[1]', message: TOOL_PATTERN_RULE });
    expect(parseFeedFilter({ tools: ['qa..*'] }, TYPES, 'filter.')).toMatchObject({ ok: false, path: 'filter.tools[0]' });
  });

  it.each(['2026-12-02T03:00:00', '2026-12-02T03:00:00+0100', '2026-02-30T03:00:00Z'])('refuses the since %s, which names no instant', (since) => {
    expect(parseFeedFilter({ since }, TYPES, 'filter.')).toMatchObject({ ok: false, path: 'filter.since' });
  });

});
