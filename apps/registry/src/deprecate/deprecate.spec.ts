import { bankWithTwoVersions, META } from '../command/use-case.fixture';
import { quarantineToolVersion } from '../quarantine/quarantine.command';
import { deprecateToolVersion } from './deprecate.command';

describe('deprecate', () => {
  it('records the deprecation with its sunset date and replacement, and answers the event', async () => {
    const { deprecate } = await bankWithTwoVersions();
    const body = { reason: 'use 1.1.0', sunsetAt: '2027-01-01T00:00:00.000Z', replacement: '1.1.0' };
    expect(await deprecate.execute(deprecateToolVersion('bank.lookup', '1.0.0', body), META)).toEqual({
      ok: true, value: { type: 'ToolVersionDeprecated', version: 1, data: { name: 'bank.lookup', version: '1.0.0', ...body } },
    });
  });

  it('revises a deprecation, and refuses a repeat that changes nothing and a version never published', async () => {
    const { deprecate } = await bankWithTwoVersions();
    await deprecate.execute(deprecateToolVersion('bank.lookup', '1.0.0', { reason: 'old' }), META);
    // Deprecating again sets the date learned since (the reason kept): a revision, not a new state.
    expect(await deprecate.execute(deprecateToolVersion('bank.lookup', '1.0.0', { reason: 'old', sunsetAt: '2027-01-01T00:00:00.000Z' }), META)).toMatchObject({
      ok: true, value: { type: 'ToolVersionDeprecated', data: { version: '1.0.0', reason: 'old', sunsetAt: '2027-01-01T00:00:00.000Z' } },
    });
    expect(await deprecate.execute(deprecateToolVersion('bank.lookup', '1.0.0', { reason: 'old', sunsetAt: '2027-01-01T00:00:00.000Z' }), META)).toMatchObject({ ok: false, error: { code: 'INVALID_TRANSITION' } });
    expect(await deprecate.execute(deprecateToolVersion('bank.lookup', '9.0.0', { reason: 'x' }), META)).toMatchObject({ ok: false, error: { code: 'VERSION_NOT_FOUND' } });
  });

  it('refuses a replacement callers could not stay on: deprecated, quarantined, or the version itself', async () => {
    const { deprecate } = await bankWithTwoVersions();
    expect(await deprecate.execute(deprecateToolVersion('bank.lookup', '1.0.0', { reason: 'x', replacement: '1.0.0' }), META)).toMatchObject({ ok: false, error: { code: 'INVALID_REPLACEMENT' } });
    // 1.0.0 → 1.1.0, then 1.1.0 back to the deprecated 1.0.0 would send callers in a circle.
    await deprecate.execute(deprecateToolVersion('bank.lookup', '1.0.0', { reason: 'x', replacement: '1.1.0' }), META);
    expect(await deprecate.execute(deprecateToolVersion('bank.lookup', '1.1.0', { reason: 'x', replacement: '1.0.0' }), META)).toMatchObject({
      ok: false, error: { code: 'INVALID_REPLACEMENT', message: 'replacement 1.0.0 is deprecated; name an active version' },
    });
    const fresh = await bankWithTwoVersions();
    await fresh.quarantine.execute(quarantineToolVersion('bank.lookup', '1.1.0', 'drift'), META);
    expect(await fresh.deprecate.execute(deprecateToolVersion('bank.lookup', '1.0.0', { reason: 'x', replacement: '1.1.0' }), META)).toMatchObject({
      ok: false, error: { code: 'INVALID_REPLACEMENT', message: 'replacement 1.1.0 is quarantined; name an active version' },
    });
  });

  it('takes an older active version as the replacement: a rollback', async () => {
    const { deprecate } = await bankWithTwoVersions();
    expect(await deprecate.execute(deprecateToolVersion('bank.lookup', '1.1.0', { reason: 'broken', replacement: '1.0.0' }), META)).toMatchObject({ ok: true });
  });
});
