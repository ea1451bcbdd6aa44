import type { Principal, ToolSpec } from '@estate/contracts';
import type { CatalogEntry } from '@estate/events';
import { createLogger } from '@estate/platform';
import type { JsonRpcMessage } from '@estate/protocol';
import { CatalogReplica } from '../catalog/catalog.replica';
import { ListChangeListeners, type ListenStream } from './list-change.listeners';

const spec = (name: string, version: string, requiredScopes: string[]): ToolSpec => ({
  name, version, description: `Tool ${name}.`, inputSchema: { type: 'object' }, sideEffect: 'read',
  requiredScopes, dataClassification: 'internal', tenants: [], owner: 'o', upstream: { server: 'bank', tool: name },
});
const entry = (name: string, versions: string[], scopes: string[]): CatalogEntry => ({
  name, position: 1, upstream: { server: 'bank', transport: 'streamable-http', allowSampling: false, allowElicitation: false },
  versions: versions.map((version) => ({ version, status: 'active', quarantined: false, spec: spec(name, version, scopes) })),
} as unknown as CatalogEntry);
const reader: Principal = { id: 'reader', scopes: ['bank:read'], clearance: 'internal' };
const stranger: Principal = { id: 'stranger', scopes: ['crm:read'], clearance: 'internal' };

function stream(id: string, principal: Principal, toolsListChanged = true): ListenStream & { got: JsonRpcMessage[]; ended: boolean } {
  const got: JsonRpcMessage[] = [];
  const s = { id, principal, pins: {}, filter: { toolsListChanged }, got, ended: false, send: (m: JsonRpcMessage) => got.push(m), end: () => (s.ended = true) };
  return s;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('list_changed for 2026-07-28 listen streams', () => {
  it('tells only the streams whose principal sees the change, once per tick, tagged with the stream id', async () => {
    const replica = new CatalogReplica(createLogger('listeners-spec', 'silent'), 0);
    const listeners = new ListChangeListeners(replica, createLogger('listeners-spec', 'silent'));
    const [mine, theirs, deaf] = [stream('a', reader), stream('b', stranger), stream('c', reader, false)];
    [mine, theirs, deaf].forEach((s) => listeners.add(s));
    replica.apply('bank.lookup', entry('bank.lookup', ['1.0.0'], ['bank:read']));
    replica.apply('bank.balance', entry('bank.balance', ['1.0.0'], ['bank:read']));
    replica.flush();
    await tick();
    expect(mine.got).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'a' } } }]);
    expect(theirs.got).toEqual([]);
    expect(deaf.got).toEqual([]);
  });

  it('stops telling a removed stream, and ends the open ones with their closing answer', async () => {
    const replica = new CatalogReplica(createLogger('listeners-spec', 'silent'), 0);
    const listeners = new ListChangeListeners(replica, createLogger('listeners-spec', 'silent'));
    const [gone, open] = [stream('gone', reader), stream(7 as unknown as string, reader)];
    listeners.add(gone)();
    listeners.add(open);
    replica.apply('bank.lookup', entry('bank.lookup', ['1.0.0'], ['bank:read']));
    replica.flush();
    await tick();
    expect(gone.got).toEqual([]);
    listeners.closeAll();
    expect(open.got.at(-1)).toEqual({ jsonrpc: '2.0', id: 7, result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 7 } } });
    expect(open.ended).toBe(true);
    expect(listeners.size).toBe(0);
  });
});
