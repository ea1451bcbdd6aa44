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
});
