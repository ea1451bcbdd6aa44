import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import bodyParser from 'body-parser';
import { jsonBodyReader, limitInBytes } from './json-body.reader';

type Seen = { body?: unknown; error?: { status?: number; type?: string; message?: string } };

/** A server answering what its JSON middleware made of a request: the body, or the error's status, type and message. */
async function server(withFastPath: boolean): Promise<{ url: string; close(): Promise<void> }> {
  const general = bodyParser.json({ limit: '1kb' });
  const fast = jsonBodyReader(1024);
  const s = http.createServer((req, res) => {
    const answer = (seen: Seen) => res.end(JSON.stringify(seen));
    const parse = () => general(req, res, (error?: unknown) => {
      const e = error as Seen['error'] | undefined;
      answer(e ? { error: { status: e.status, type: e.type, message: e.message } } : { body: (req as { body?: unknown }).body });
    });
    if (!withFastPath) return parse();
    fast(req, res, (error?: unknown) => {
      if (error) {
        const e = error as Seen['error'];
        return answer({ error: { status: e?.status, type: e?.type, message: e?.message } });
      }
      parse();
    });
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/`, close: () => new Promise((resolve) => s.close(() => resolve())) };
}

async function send(url: string, body: Buffer | string, headers: Record<string, string>): Promise<Seen> {
  const response = await fetch(url, { method: 'POST', body, headers });
  return (await response.json()) as Seen;
}

describe('jsonBodyReader', () => {
  let plain: Awaited<ReturnType<typeof server>>;
  let fast: Awaited<ReturnType<typeof server>>;
  beforeAll(async () => {
    [plain, fast] = await Promise.all([server(false), server(true)]);
  });
  afterAll(async () => {
    await Promise.all([plain.close(), fast.close()]);
  });

  const json = { 'content-type': 'application/json' };
  it.each([
    ['an object', '{"name":"pay.lookup","n":[1,2,{"x":null}]}', json],
    ['an array with leading white space', ' \n[1,"two"]', json],
    ['UTF-8 text and a byte order mark', '\uFEFF{"title":"Zahlung prüfen ✓"}', { 'content-type': 'application/json; charset=utf-8' }],
    ['broken JSON', '{"name": ', json],
    ['a bare string (strict: objects and arrays only)', '"just text"', json],
    ['a bare number after white space', '  42', json],
    ['a body over the limit', JSON.stringify({ pad: 'x'.repeat(2000) }), json],
    ['another charset (left to body-parser)', '{"a":1}', { 'content-type': 'application/json; charset=latin1' }],
    ['white space only', '   ', json],
  ])('reads %s exactly as body-parser does', async (_what, body, headers) => {
    const [expected, actual] = await Promise.all([send(plain.url, body, headers), send(fast.url, body, headers)]);
    expect(actual).toEqual(expected);
  });

  it('refuses broken JSON as a parse failure, with the parser\'s message', async () => {
    expect(await send(fast.url, '{"a":}', json)).toMatchObject({ error: { status: 400, type: 'entity.parse.failed', message: expect.stringMatching(/JSON/) } });
  });

  it('spells limits in bytes, and declines a spelling it does not know', () => {
    expect(limitInBytes('1mb')).toBe(1024 * 1024);
    expect(limitInBytes('512KB')).toBe(512 * 1024);
    expect(limitInBytes('100')).toBe(100);
    expect(limitInBytes('1.5mb')).toBeUndefined();
  });
});
