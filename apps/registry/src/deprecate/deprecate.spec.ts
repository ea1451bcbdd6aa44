import { bankWithTwoVersions, META } from '../command/use-case.fixture';
import { deprecateToolVersion } from './deprecate.command';

describe('deprecate', () => {
  it('records the deprecation with its sunset date and replacement, and answers the event', async () => {
    const { deprecate } = await bankWithTwoVersions();
    const body = { reason: 'use 1.1.0', sunsetAt: '2027-01-01T00:00:00.000Z', replacement: '1.1.0' };
    expect(await deprecate.execute(deprecateToolVersion('bank.lookup', '1.0.0', body), META)).toEqual({
      ok: true, value: { type: 'ToolVersionDeprecated', version: 1, data: { name: 'bank.lookup', version: '1.0.0', ...body } },
    });
  });

  it('refuses a version that is not active, and one never published', async () => {
    const { deprecate } = await bankWithTwoVersions();
    await deprecate.execute(deprecateToolVersion('bank.lookup', '1.0.0', { reason: 'old' }), META);
    expect(await deprecate.execute(deprecateToolVersion('bank.lookup', '1.0.0', { reason: 'again' }), META)).toMatchObject({ ok: false, error: { code: 'INVALID_TRANSITION' } });
    expect(await deprecate.execute(deprecateToolVersion('bank.lookup', '9.0.0', { reason: 'x' }), META)).toMatchObject({ ok: false, error: { code: 'VERSION_NOT_FOUND' } });
  });
});
