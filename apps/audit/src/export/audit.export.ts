import { Readable } from 'node:stream';
import { StreamableFile } from '@nestjs/common';
import type { AuditQuery, Parsed } from '../domain/audit-query.parser';
import type { AuditRepository } from '../store/audit.repository';
import { exportLines } from './audit-export.lines';
import { EXPORT_MEDIA_TYPES } from './export-format';

/** `limit` and `cursor` page the JSON answer; an export is the whole range, so they would only mislead. */
export function exportProblem(raw: Record<string, unknown>): Extract<Parsed<never>, { ok: false }> | undefined {
  for (const parameter of ['limit', 'cursor']) {
    if (raw[parameter] !== undefined) return { ok: false, parameter, message: `"${parameter}" pages the JSON answer; an export holds the whole range` };
  }
  return undefined;
}

/**
 * The trail's entries matching `query`, oldest first, as a response body that is read from the
 * database only as fast as the client takes it (Nest pipes it, so the socket's backpressure
 * reaches the page reads). The range ends at the newest entry when the export began.
 */
export async function openExport(repo: AuditRepository, query: AuditQuery, format: 'ndjson' | 'csv'): Promise<StreamableFile> {
  // Read before the headers go out: a database outage still answers 503, not a truncated 200.
  const upto = await repo.newestSeq();
  const lines = exportLines(format, (after, limit) => repo.exportPage(query, after, upto, limit));
  // highWaterMark 1: hold at most the page being written, never read ahead of the client.
  const body = Readable.from(lines, { objectMode: false, highWaterMark: 1 });
  const type = format === 'csv' ? `${EXPORT_MEDIA_TYPES.csv}; charset=utf-8; header=present` : `${EXPORT_MEDIA_TYPES.ndjson}; charset=utf-8`;
  const file = new StreamableFile(body, { type, disposition: `attachment; filename="audit.${format}"` });
  // A failure once the body has begun must not end it cleanly: a cut connection says "incomplete".
  return file.setErrorHandler((_error, response) => response.destroy?.());
}
