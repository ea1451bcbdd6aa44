import { bankWithTwoVersions, META } from '../command/use-case.fixture';
import { quarantineToolVersion } from './quarantine.command';

describe('quarantine', () => {
  it('quarantines a version, and a second report of the same drift records nothing (null)', async () => {
    const { quarantine, store } = await bankWithTwoVersions();
    expect(await quarantine.execute(quarantineToolVersion('bank.lookup', '1.1.0', 'drift'), META)).toMatchObject({ ok: true, value: { type: 'ToolQuarantined' } });
    expect(await quarantine.execute(quarantineToolVersion('bank.lookup', '1.1.0', 'drift'), META)).toEqual({ ok: true, value: null });
    expect(await store.readStream('tool:bank.lookup')).toHaveLength(3);
  });
});
