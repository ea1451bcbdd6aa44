import type { Principal } from '@estate/contracts';
import { bankWithTwoVersions, META } from '../command/use-case.fixture';
import { quarantineToolVersion } from './quarantine.command';

describe('quarantine', () => {
  it('quarantines a version, and a second report of the same drift records nothing (null)', async () => {
    const { quarantine, store } = await bankWithTwoVersions();
    expect(await quarantine.execute(quarantineToolVersion('bank.lookup', '1.1.0', 'drift'), META)).toMatchObject({ ok: true, value: { type: 'ToolQuarantined' } });
    expect(await quarantine.execute(quarantineToolVersion('bank.lookup', '1.1.0', 'drift'), META)).toEqual({ ok: true, value: null });
    expect(await store.readStream('tool:bank.lookup')).toHaveLength(3);
  });

  it('lets a responder without governance scopes act only on versions it may see; the others answer as missing', async () => {
    const { quarantine } = await bankWithTwoVersions();
    const responder: Principal = { id: 'oncall', scopes: ['estate:quarantine'], clearance: 'internal' };
    // bank.lookup needs bank:read, which the responder lacks: for it the tool does not exist.
    const hidden = await quarantine.execute(quarantineToolVersion('bank.lookup', '1.1.0', 'probe', responder), META);
    const missing = await quarantine.execute(quarantineToolVersion('bank.nothing', '1.1.0', 'probe', responder), META);
    expect(hidden).toEqual({ ok: false, error: { code: 'TOOL_NOT_FOUND', message: 'tool "bank.lookup" is not published' } });
    expect(missing).toEqual({ ok: false, error: { code: 'TOOL_NOT_FOUND', message: 'tool "bank.nothing" is not published' } });
    const reader = { ...responder, scopes: ['estate:quarantine', 'bank:read'] };
    expect(await quarantine.execute(quarantineToolVersion('bank.lookup', '1.1.0', 'drift', reader), META)).toMatchObject({ ok: true, value: { type: 'ToolQuarantined' } });
  });
});
