import { serverDecider } from '../domain/server.decider';
import { toolDecider } from '../domain/tool.decider';
import { StreamStateCache } from './stream-state.cache';

const registered = { status: 'registered' as const, server: { name: 'a', namespace: 'a', transport: 'stdio' as const, command: 'x', owner: 'o', allowSampling: false, allowElicitation: false } };

describe('the stream state cache', () => {
  it('starts a stream it does not hold, or holds for another decider, at the initial state', () => {
    const cache = new StreamStateCache(2);
    expect(cache.get(serverDecider, 'server:a')).toEqual({ state: { status: 'unregistered' }, version: 0 });
    cache.set(serverDecider, 'server:a', { state: registered, version: 1 });
    expect(cache.get(serverDecider, 'server:a')).toEqual({ state: registered, version: 1 });
    expect(cache.get(toolDecider(), 'server:a')).toEqual({ state: { versions: new Map() }, version: 0 });
  });

  it('holds at most its limit, dropping the stream used least recently', () => {
    const cache = new StreamStateCache(2);
    for (const name of ['a', 'b']) cache.set(serverDecider, `server:${name}`, { state: registered, version: 1 });
    cache.get(serverDecider, 'server:a');
    cache.set(serverDecider, 'server:c', { state: registered, version: 1 });
    expect(cache.size).toBe(2);
    expect(cache.get(serverDecider, 'server:b').version).toBe(0);
    expect(cache.get(serverDecider, 'server:a').version).toBe(1);
  });
});
