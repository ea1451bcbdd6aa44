import { BANK, META, useCases } from '../command/use-case.fixture';
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
});
