import { bankWithTwoVersions, META } from '../command/use-case.fixture';
import { deprecateToolVersion } from '../deprecate/deprecate.command';

describe('sunset', () => {
  it('retires a deprecated version once its sunset date has passed, saying why, and only once', async () => {
    const { deprecate, sunset, store } = await bankWithTwoVersions();
    await deprecate.execute(deprecateToolVersion('bank.lookup', '1.0.0', { reason: 'old', sunsetAt: '2026-01-01T00:00:00.000Z' }), META);
    expect(await sunset.sweep(new Date('2025-12-31T00:00:00.000Z'))).toBe(0);
    expect(await sunset.sweep(new Date('2026-01-01T00:00:00.000Z'))).toBe(1);
    expect(await sunset.sweep(new Date('2026-01-02T00:00:00.000Z'))).toBe(0);
    const events = await store.readStream('tool:bank.lookup');
    expect(events.slice(-2)).toMatchObject([
      { type: 'ToolVersionSunsetReached', actor: 'estate-registry' },
      { type: 'ToolVersionRetired', data: { reason: 'sunset reached (2026-01-01T00:00:00.000Z)' } },
    ]);
  });
});
