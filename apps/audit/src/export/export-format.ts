/** How `GET /v1/audit` answers: a JSON page, or the whole range streamed as NDJSON or CSV. */
export type AuditFormat = 'json' | 'ndjson' | 'csv';

export const EXPORT_MEDIA_TYPES: Record<AuditFormat, string> = {
  json: 'application/json',
  ndjson: 'application/x-ndjson',
  csv: 'text/csv',
};

export type FormatChoice = { ok: true; format: AuditFormat } | { ok: false; status: 400 | 406; message: string };

interface MediaRange {
  type: string;
  q: number;
}

function mediaRanges(accept: string): MediaRange[] {
  return accept.split(',').map((part) => {
    const [type, ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    return { type, q: Number.isFinite(weight) ? weight : 0 };
  }).filter((r) => r.type.length > 0);
}

/** How much a media range wants a media type: its q when it matches (exact, `text/*` or `*\/*`), else undefined. */
function weightFor(ranges: MediaRange[], mediaType: string): number | undefined {
  const [major] = mediaType.split('/');
  const exact = ranges.find((r) => r.type === mediaType);
  const wild = ranges.find((r) => r.type === `${major}/*`) ?? ranges.find((r) => r.type === '*/*');
  return (exact ?? wild)?.q;
}

/**
 * `?format=` wins over `Accept`; without either the answer is JSON (what every client got before
 * exports existed). Among acceptable types the highest q wins, JSON on a tie. Nothing acceptable: 406.
 */
export function chooseFormat(format: unknown, accept: string | undefined): FormatChoice {
  if (format !== undefined && format !== '') {
    if (format === 'json' || format === 'ndjson' || format === 'csv') return { ok: true, format };
    return { ok: false, status: 400, message: '"format" must be json, ndjson or csv' };
  }
  if (accept === undefined || accept.trim() === '') return { ok: true, format: 'json' };
  const ranges = mediaRanges(accept);
  let best: { format: AuditFormat; q: number } | undefined;
  for (const candidate of ['json', 'ndjson', 'csv'] as const) {
    const q = weightFor(ranges, EXPORT_MEDIA_TYPES[candidate]);
    if (q !== undefined && q > 0 && (best === undefined || q > best.q)) best = { format: candidate, q };
  }
  if (best) return { ok: true, format: best.format };
  return { ok: false, status: 406, message: 'the audit query answers application/json, application/x-ndjson or text/csv' };
}
