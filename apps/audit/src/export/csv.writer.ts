/** Characters that make a spreadsheet read a cell as a formula (and tab / CR, which some strip first). */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, a quote or a line break, quotes doubled.
 * A text cell that a spreadsheet would run as a formula gets a leading `'` (OWASP's guard for CSV
 * injection): an audit export is opened in spreadsheets, and the trail holds text that callers chose.
 */
export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const guarded = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(guarded) || guarded !== value ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}

/** One record, ended with CRLF as RFC 4180 asks. */
export function csvRow(values: ReadonlyArray<string | number | null>): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
