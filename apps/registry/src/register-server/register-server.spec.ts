import { BANK, LOOKUP, META, useCases } from '../command/use-case.fixture';
import { registerServer } from './register-server.command';

describe('register server', () => {
  it('records a registration once; the same definition again answers the same and records nothing', async () => {
    const { register, store } = useCases();
    expect(await register.execute(registerServer(BANK), META)).toEqual({ ok: true, value: BANK });
    expect(await register.execute(registerServer(BANK), META)).toEqual({ ok: true, value: BANK });
    expect(await store.readStream('server:bank')).toHaveLength(1);
  });

  it('refuses another definition under a taken name', async () => {
    const { register } = useCases();
    await register.execute(registerServer(BANK), META);
    expect(await register.execute(registerServer({ ...BANK, url: 'http://127.0.0.1:10/mcp' }), META)).toMatchObject({ ok: false, error: { code: 'SERVER_ALREADY_REGISTERED' } });
  });

  it('refuses a namespace that already holds another server\'s tools, which would leave them unpublishable', async () => {
    const { register, publish, store } = useCases();
    await register.execute(registerServer({ ...BANK, name: 'open', namespace: '' }), META);
    expect(await publish.execute({ ...LOOKUP, name: 'later.tool', upstream: { server: 'open', tool: 'lookup' } }, META)).toMatchObject({ ok: true });
    const later = await register.execute(registerServer({ ...BANK, name: 'later', namespace: 'later' }), META);
    expect(later).toMatchObject({ ok: false, error: { code: 'NAMESPACE_IN_USE', message: expect.stringContaining('later.tool, served by server "open"') } });
    expect(await store.listStreams('server:later')).toEqual([]);
    // Without a namespace it takes nothing from anyone.
    expect(await register.execute(registerServer({ ...BANK, name: 'later', namespace: '' }), META)).toMatchObject({ ok: true });
  });

  it('keeps names that differ only in case apart: no Bank beside bank, and no BANK.x from a server without a namespace', async () => {
    const { register, publish, store } = useCases();
    await register.execute(registerServer(BANK), META);
    expect(await register.execute(registerServer({ ...BANK, name: 'Bank', namespace: 'Bank' }), META)).toMatchObject({ ok: false, error: { code: 'NAMESPACE_IN_USE' } });
    await register.execute(registerServer({ ...BANK, name: 'open', namespace: '' }), META);
    const lookalike = await publish.execute({ ...LOOKUP, name: 'BANK.lookup', upstream: { server: 'open', tool: 'lookup' } }, META);
    expect(lookalike).toMatchObject({ ok: false, error: { details: { issues: [expect.objectContaining({ code: 'namespace_taken', message: expect.stringContaining('"bank." is the namespace of server "bank"') })] } } });
    expect(await store.listStreams('tool:')).toEqual([]);
  });
});
