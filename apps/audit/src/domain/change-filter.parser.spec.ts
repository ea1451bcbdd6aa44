import { isToolPattern, parseChangeFilter, TOOL_PATTERN_RULE } from './change-filter.parser';

const TYPES = ['ToolVersionDeprecated', 'ToolVersionRetired'];

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

describe('parseChangeFilter', () => {
  it('keeps what the shared parser reads', () => {
    expect(parseChangeFilter({ tools: 'bank.*,bank.lookup', types: 'ToolVersionRetired', since: '2026-12-02T03:00:00+01:00' }, TYPES)).toEqual({
      ok: true, filter: { tools: ['bank.*', 'bank.lookup'], types: ['io.estate.tool.version.retired'], sinceTime: '2026-12-02T02:00:00.000Z' },
    });
    expect(parseChangeFilter({ since: '42' }, TYPES)).toEqual({ ok: true, filter: { tools: [], types: [], sincePosition: 42 } });
  });

  it('names the malformed glob by its index, under the given base', () => {
    expect(parseChangeFilter({ tools: 'bank.*,qa..*' }, TYPES)).toEqual({ ok: false, path: 'tools[1]', message: TOOL_PATTERN_RULE });
    expect(parseChangeFilter({ tools: ['qa..*'] }, TYPES, 'filter.')).toMatchObject({ ok: false, path: 'filter.tools[0]' });
  });

  it.each(['2026-12-02T03:00:00', '2026-12-02T03:00:00+0100', '2026-02-30T03:00:00Z'])('refuses the since %s, which names no instant', (since) => {
    expect(parseChangeFilter({ since }, TYPES, 'filter.')).toMatchObject({ ok: false, path: 'filter.since' });
  });

  it('passes on the shared parser refusals', () => {
    expect(parseChangeFilter({ types: 'Nope' }, TYPES)).toMatchObject({ ok: false, path: 'types[0]' });
    expect(parseChangeFilter({ since: 'yesterday' }, TYPES)).toMatchObject({ ok: false, path: 'since' });
  });
});
