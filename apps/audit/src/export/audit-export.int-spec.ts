import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { topicName } from '@estate/events';
import { createLogger, issueDevToken, KafkaEventBus } from '@estate/platform';
import { createTestDatabase, kafkaBrokers, randomTopicPrefix } from '../../../../test/support/infra';
import { startAudit, type RunningAudit } from '../audit.app';
import { loadAuditConfig } from '../config';
import { AuditRepository } from '../store/audit.repository';

const SECRET = 'audit-export-int-spec-secret-0123';
const logger = createLogger('audit-export-int-spec', process.env.LOG_LEVEL ?? 'silent');
const BULK = 20_000;
/** About 1 kB per entry: 20,000 entries are ~25 MB, far more than the socket buffers hold. */
const PADDING = 'x'.repeat(900);
const EVIL = ['=HYPERLINK("http://evil")', 'a,b "quoted"', 'two\nlines'];

/** RFC 4180 records, as a spreadsheet would read them. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quoted && c === '"' && text[i + 1] === '"') {
      cell += '"';
      i += 1;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (quoted || (c !== ',' && c !== '\r')) {
      cell += c;
    } else if (c === ',') {
      row.push(cell);
      cell = '';
    } else {
      // CR outside quotes: the CRLF that ends a record.
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i += 1;
    }
  }
  return rows;
}

describe('audit export on PostgreSQL: NDJSON and CSV streamed for any range', () => {
  let db: { url: string; drop(): Promise<void> };
  let bus: KafkaEventBus;
  let audit: RunningAudit;
  let auditor: string;
  const get = (path: string, headers: Record<string, string> = {}, token = auditor) =>
    fetch(`${audit.url}${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } });

  beforeAll(async () => {
    db = await createTestDatabase();
    const prefix = randomTopicPrefix();
    bus = new KafkaEventBus({ brokers: kafkaBrokers(), clientId: 'audit-export-int-spec', logger });
    await bus.ensureTopics([{ name: topicName(prefix, 'registryEvents') }, { name: topicName(prefix, 'calls') }]);
    const config = loadAuditConfig({ ESTATE_AUDIT_PORT: '0', ESTATE_JWT_SECRET: SECRET, ESTATE_TOPIC_PREFIX: prefix, ESTATE_AUDIT_GROUP: `audit-${randomUUID()}` });
    audit = await startAudit({ ...config, databaseUrl: db.url }, bus, logger, { heartbeatMs: 500 });
    auditor = await issueDevToken(SECRET, { sub: 'auditor', scope: 'estate:audit' });
    // Written straight into the trail: the export reads entries, whatever recorded them, and a
    // 20,000-event ingest would only slow the test down.
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    const insert = `INSERT INTO audit.entries (event_id, topic, type, stream, tool, version, principal, outcome, occurred_at, payload, prev_hash, hash)`;
    await pg.query(
      `${insert} SELECT 'bulk-' || i, 'calls', 'ToolCallCompleted', 'p' || (i % 7), 'bank.lookup', '1.0.0', 'p' || (i % 7), 'ok',
              timestamptz '2026-01-01T00:00:00Z' + i * interval '1 second',
              json_build_object('id', 'bulk-' || i, 'type', 'ToolCallCompleted', 'version', 1, 'stream', 'p', 'position', i, 'occurredAt', '2026-01-01T00:00:00Z',
                'actor', 'edge', 'correlationId', 'c', 'data', json_build_object('n', i, 'pad', $1::text))::text, 'p', 'h'
         FROM generate_series(1, ${BULK}) AS i`,
      [PADDING],
    );
    for (const [i, text] of EVIL.entries()) {
      const payload = { id: `evil-${i}`, type: 'ToolCallRefused', version: 1, stream: text, position: i, occurredAt: '2026-02-01T00:00:00Z', actor: 'edge', correlationId: 'c', data: { detail: text } };
      await pg.query(`${insert} VALUES ($1, 'calls', 'ToolCallRefused', $2, 'crm.note', '1.0.0', $2, 'refused:invalid_arguments', '2026-02-01T00:00:00Z', $3, 'p', 'h')`, [`evil-${i}`, text, JSON.stringify(payload)]);
    }
    await pg.end();
  }, 120_000);

  afterAll(async () => {
    await audit?.stop();
    await bus?.close();
    await db?.drop();
  });

  it('streams 20,000 entries as NDJSON, oldest first, reading pages only as fast as the client reads', async () => {
    const pages = jest.spyOn(audit.app.get(AuditRepository), 'exportPage');
    const response = await get('/v1/audit?tool=bank.lookup', { accept: 'application/x-ndjson' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value, { stream: true });
    // The first bytes are here, the client stops reading for a while: the server must wait too.
    const atFirstBytes = pages.mock.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 500));
    const whilePaused = pages.mock.calls.length;
    expect(atFirstBytes).toBeLessThan(BULK / 500);
    expect(whilePaused).toBeLessThan(BULK / 500);
    let lines = 0;
    let lastSeq = 0;
    let lastN = 0;
    for (;;) {
      const parts = text.split('\n');
      text = parts.pop() ?? '';
      for (const part of parts) {
        const entry = JSON.parse(part) as { seq: number; tool: string; data: { n: number; pad: string } };
        expect(entry.seq).toBeGreaterThan(lastSeq);
        expect(entry.data.n).toBe(lastN + 1);
        lastSeq = entry.seq;
        lastN = entry.data.n;
        lines += 1;
      }
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toBe('');
    expect(lines).toBe(BULK);
    expect(pages.mock.calls.length).toBeGreaterThanOrEqual(BULK / 500);
    pages.mockRestore();
  }, 60_000);

  it('exports CSV with a header, quoting and a formula guard, under the JSON query\'s filters', async () => {
    const response = await get('/v1/audit?tool=crm.note&format=csv');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/csv');
    const [header, ...rows] = parseCsv(await response.text());
    expect(header).toEqual(['seq', 'occurredAt', 'type', 'topic', 'stream', 'tool', 'version', 'principal', 'outcome', 'eventId', 'data']);
    expect(rows).toHaveLength(EVIL.length);
    const principal = header.indexOf('principal');
    expect(rows.map((r) => r[principal])).toEqual([`'${EVIL[0]}`, EVIL[1], EVIL[2]]);
    expect(rows.map((r) => (JSON.parse(r[header.indexOf('data')]) as { detail: string }).detail)).toEqual(EVIL);
    expect(rows.every((r) => r[header.indexOf('outcome')] === 'refused:invalid_arguments')).toBe(true);

    const ranged = await get('/v1/audit?tool=bank.lookup&from=2026-01-01T00:00:10Z&to=2026-01-01T00:00:20Z', { accept: 'text/csv' });
    expect(parseCsv(await ranged.text())).toHaveLength(1 + 10);
  });

  it('keeps the JSON answer, the authorization and precise refusals', async () => {
    const json = await get('/v1/audit?tool=crm.note', { accept: 'application/json' });
    expect(((await json.json()) as { entries: unknown[] }).entries).toHaveLength(EVIL.length);
    const notAcceptable = await get('/v1/audit', { accept: 'text/html' });
    expect(notAcceptable.status).toBe(406);
    expect(await notAcceptable.json()).toMatchObject({ error: 'NOT_ACCEPTABLE', details: { parameter: 'Accept' } });
    expect((await get('/v1/audit?format=xml')).status).toBe(400);
    const paged = await get('/v1/audit?format=csv&limit=5');
    expect(paged.status).toBe(400);
    expect(await paged.json()).toMatchObject({ details: { parameter: 'limit' } });
    expect((await fetch(`${audit.url}/v1/audit?format=csv`)).status).toBe(401);
    const outsider = await issueDevToken(SECRET, { sub: 'agent-a', scope: 'bank:read' });
    expect((await get('/v1/audit?format=ndjson', {}, outsider)).status).toBe(403);
  });
});
