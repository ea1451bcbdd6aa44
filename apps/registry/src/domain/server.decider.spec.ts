import type { ServerRegisteredData } from '@estate/events';
import { decideServer, evolveServer, initialServerState, type RegisterServer, type ServerState } from './server.decider';

const PAY: ServerRegisteredData = {
  name: 'pay', namespace: 'pay', transport: 'streamable-http', url: 'http://127.0.0.1:1/mcp',
  owner: 'payments-team', allowSampling: false, allowElicitation: false,
};
const register = (server: ServerRegisteredData): RegisterServer => ({ type: 'RegisterServer', server });
const given = (...servers: ServerRegisteredData[]): ServerState =>
  servers.reduce<ServerState>((s, data) => evolveServer(s, { type: 'ServerRegistered', version: 2, data }), initialServerState());

describe('registering an upstream server', () => {
  it('records a new server registered by an admin', () => {
    expect(decideServer(register(PAY), given())).toEqual({ ok: true, events: [{ type: 'ServerRegistered', version: 2, data: PAY }] });
  });


  it('accepts an empty namespace (bare tool names) and refuses any namespace other than the name', () => {
    expect(decideServer(register({ ...PAY, namespace: '' }), given())).toMatchObject({ ok: true, events: [{ data: { namespace: '' } }] });
    const decision = decideServer(register({ ...PAY, namespace: 'payments' }), given());
    expect(decision).toEqual({ ok: false, error: expect.objectContaining({ code: 'NAMESPACE_FORBIDDEN', message: expect.stringContaining('"pay"') }) });
  });

  it('treats the same definition again as a no-op, whatever the key order it comes back in', () => {
    const { owner, ...rest } = PAY;
    const reordered = JSON.parse(JSON.stringify({ owner, ...rest })) as ServerRegisteredData;
    expect(decideServer(register(reordered), given(PAY))).toEqual({ ok: true, events: [] });
  });

  it('refuses a different definition under a taken name', () => {
    const decision = decideServer(register({ ...PAY, url: 'http://127.0.0.1:2/mcp' }), given(PAY));
    expect(decision).toEqual({ ok: false, error: expect.objectContaining({ code: 'SERVER_ALREADY_REGISTERED' }) });
  });

  it('evolves to the registered definition', () => {
    expect(given(PAY)).toEqual({ status: 'registered', server: PAY });
  });
});
