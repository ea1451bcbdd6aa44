import type { AuditEntry } from '../domain/audit-entry.mapper';
import { toEntryView, type AuditEntryView } from '../domain/audit-entry.view';
import { csvRow } from './csv.writer';

/** The CSV columns: the JSON view's fields, `data` as JSON text. */
const COLUMNS = ['seq', 'occurredAt', 'type', 'topic', 'stream', 'tool', 'version', 'principal', 'outcome', 'eventId', 'data'] as const satisfies ReadonlyArray<keyof AuditEntryView>;

/** Reads entries in seq order after `afterSeq`, at most `limit`: one page of the export. */
export type ExportPageReader = (afterSeq: number, limit: number) => Promise<AuditEntry[]>;

export const EXPORT_PAGE = 500;

/**
 * The export's text, produced as it is consumed: a page is read only when the previous one has been
 * taken, so a slow client holds one page in memory, whatever the range.
 */
export async function* exportLines(format: 'ndjson' | 'csv', readPage: ExportPageReader, pageSize = EXPORT_PAGE): AsyncGenerator<string> {
  if (format === 'csv') yield csvRow(COLUMNS);
  let after = 0;
  for (;;) {
    const page = await readPage(after, pageSize);
    // One chunk per page: a write per row would cost a syscall per entry.
    if (page.length > 0) yield page.map((entry) => line(format, toEntryView(entry))).join('');
    if (page.length < pageSize) return;
    after = page[page.length - 1].seq;
  }
}

function line(format: 'ndjson' | 'csv', view: AuditEntryView): string {
  if (format === 'ndjson') return `${JSON.stringify(view)}\n`;
  return csvRow(COLUMNS.map((column) => (column === 'data' ? JSON.stringify(view.data) : view[column])));
}
