import { bankWithTwoVersions, LOOKUP, META } from '../command/use-case.fixture';

describe('check', () => {
  it('answers exactly what publishing would, and stores nothing', async () => {
    const { check, publish, store } = await bankWithTwoVersions();
    const next = { ...LOOKUP, version: '1.2.0', title: 'Find a payment by reference' };
    const checked = await check.execute(next, META);
    expect(checked).toMatchObject({ ok: true, value: { name: 'bank.lookup', version: '1.2.0' } });
    expect(await store.readStream('tool:bank.lookup')).toHaveLength(2);
    expect(await publish.execute(next, META)).toEqual(checked);
  });

  it('refuses what publishing would refuse', async () => {
    const { check } = await bankWithTwoVersions();
    expect(await check.execute({ ...LOOKUP, version: '1.0.5' }, META)).toMatchObject({ ok: false, error: { code: 'VERSION_NOT_NEWER' } });
  });

  it('refuses a number too large for JSON as a malformed spec (400) naming its path, where it would have been served as null', async () => {
    const { check, publish } = await bankWithTwoVersions();
    const body = JSON.parse(JSON.stringify({ ...LOOKUP, version: '1.2.0' }).replace('"inputSchema":{', '"inputSchema":{"maxProperties":1e400,')) as unknown;
    const refusal = { ok: false, error: { code: 'INVALID_SPEC', details: { issues: [expect.objectContaining({ path: '$.inputSchema.maxProperties', code: 'not_finite' })] } } };
    expect(await check.execute(body, META)).toMatchObject(refusal);
    expect(await publish.execute(body, META)).toMatchObject(refusal);
  });

  it('refuses a schema of 40,000 properties as too large (400) naming the limit, instead of holding the event loop for seconds', async () => {
    const { check } = await bankWithTwoVersions();
    const properties = Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`p${i}`, { type: 'null' }]));
    const wide = { ...LOOKUP, version: '2.0.0', inputSchema: { type: 'object', properties } };
    expect(await check.execute(wide, META)).toMatchObject({
      ok: false,
      error: { code: 'INVALID_SPEC', details: { issues: [{ path: '$.inputSchema', code: 'too_large', message: expect.stringContaining('more than 5000 members') }] } },
    });
  });
});
