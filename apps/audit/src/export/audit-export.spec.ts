import type { AuditEntry } from '../domain/audit-entry.mapper';
import { exportLines } from './audit-export.lines';
import { csvCell, csvRow } from './csv.writer';
import { chooseFormat } from './export-format';

function entry(seq: number, data: Record<string, unknown> = {}, principal = 'alice'): AuditEntry {
  return {
    seq, eventId: `e-${seq}`, topic: 't', type: 'ToolCallCompleted', stream: principal, tool: 'bank.lookup', version: '1.0.0', principal, outcome: 'ok',
    occurredAt: '2026-11-30T10:00:00.000Z', prevHash: 'p', hash: 'h',
    payload: { id: `e-${seq}`, type: 'ToolCallCompleted', version: 1, stream: principal, position: seq, occurredAt: '2026-11-30T10:00:00.000Z', actor: 'edge', correlationId: 'c', data },
  };
}

describe('audit export: format negotiation', () => {
  it.each([
    [undefined, undefined, 'json'],
    [undefined, '*/*', 'json'],
    [undefined, 'application/json, text/plain, */*', 'json'],
    [undefined, 'application/x-ndjson', 'ndjson'],
    [undefined, 'text/csv', 'csv'],
    [undefined, 'text/*', 'csv'],
    [undefined, 'application/json;q=0.5, text/csv', 'csv'],
    ['ndjson', 'text/csv', 'ndjson'],
    ['csv', undefined, 'csv'],
  ])('format %s with Accept %s answers %s', (format, accept, expected) => {
    expect(chooseFormat(format, accept)).toEqual({ ok: true, format: expected });
  });

  it('refuses an Accept it cannot answer with 406 and an unknown format with 400', () => {
    expect(chooseFormat(undefined, 'text/html')).toMatchObject({ ok: false, status: 406 });
    expect(chooseFormat(undefined, 'text/csv;q=0, application/xml')).toMatchObject({ ok: false, status: 406 });
    expect(chooseFormat('xml', undefined)).toMatchObject({ ok: false, status: 400 });
    expect(chooseFormat(['csv', 'ndjson'], undefined)).toMatchObject({ ok: false, status: 400 });
  });
});

describe('audit export: CSV cells', () => {
  it('quotes commas, quotes and line breaks, and doubles quotes', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines\r\n')).toBe('"two\nlines\r\n"');
    expect(csvCell(null)).toBe('');
    expect(csvCell(42)).toBe('42');
  });

  it('defuses text a spreadsheet would run as a formula', () => {
    for (const text of ['=HYPERLINK("http://x")', '+1+1', '-2+3', '@SUM(A1)', '\t=1']) {
      const cell = csvCell(text);
      expect(cell.startsWith(`"'`)).toBe(true);
      expect(cell.slice(2, -1).replace(/""/g, '"')).toBe(text);
    }
    expect(csvRow(['a', 'b,c', null])).toBe('a,"b,c",\r\n');
  });
});

describe('audit export: lines are produced as they are consumed', () => {
  it('reads the next page only when the previous one has been taken, and stops at a short page', async () => {
    const reads: number[] = [];
    const pages = [[entry(1), entry(2)], [entry(3), entry(4)], [entry(5)]];
    const lines = exportLines('ndjson', async (after) => {
      reads.push(after);
      return pages[reads.length - 1] ?? [];
    }, 2);
    const first = await lines.next();
    expect(reads).toEqual([0]);
    expect((first.value as string).split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { seq: number }).seq)).toEqual([1, 2]);
    const rest: string[] = [];
    for await (const chunk of lines) rest.push(chunk);
    expect(reads).toEqual([0, 2, 4]);
    expect(rest.join('').split('\n').filter(Boolean)).toHaveLength(3);
  });

  it('writes a header row, then one record per entry with data as JSON', async () => {
    const chunks: string[] = [];
    for await (const chunk of exportLines('csv', async (after) => (after === 0 ? [entry(7, { note: '=cmd|x, "y"\nz' })] : []), 10)) chunks.push(chunk);
    const [header, row] = chunks.join('').split('\r\n');
    expect(header).toBe('seq,occurredAt,type,topic,stream,tool,version,principal,outcome,eventId,data');
    expect(row.startsWith('7,2026-11-30T10:00:00.000Z,ToolCallCompleted,t,alice,bank.lookup,1.0.0,alice,ok,e-7,"{""note"":')).toBe(true);
  });
});
