import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { SessionEventStore } from './memory-event.store';

const note = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n } });

async function replay(store: SessionEventStore, after: string): Promise<unknown[]> {
  const sent: unknown[] = [];
  await store.replayEventsAfter(after, { send: async (_id, message) => void sent.push(message) });
  return sent;
}

describe('SessionEventStore', () => {
  it('replays exactly what came after the last event the client saw, on that stream only', async () => {
    const store = new SessionEventStore();
    const first = await store.storeEvent('_GET_stream', note(1));
    await store.storeEvent('other', note(99));
    await store.storeEvent('_GET_stream', note(2));
    await store.storeEvent('_GET_stream', note(3));
    expect(await store.getStreamIdForEventId(first)).toBe('_GET_stream');
    expect(await replay(store, first)).toEqual([note(2), note(3)]);
  });

  it('keeps a bounded number of request streams but never drops the standalone stream', async () => {
    const store = new SessionEventStore();
    const standalone = await store.storeEvent('_GET_stream', note(0));
    await store.storeEvent('_GET_stream', note(1));
    for (let i = 0; i < 500; i += 1) await store.storeEvent(`post-${i}`, note(i));
    expect(store.count('post-0')).toBe(0);
    expect(store.count('post-499')).toBe(1);
    expect(await replay(store, standalone)).toEqual([note(1)]);
  });
});

describe('SessionEventStore: answered request streams', () => {
  const answer = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: { tools: [] } });

  it('forgets a request stream soon after its response, keeping only the newest answered ones', async () => {
    const store = new SessionEventStore();
    const standalone = await store.storeEvent('_GET_stream', note(0));
    for (let i = 0; i < 100; i += 1) {
      await store.storeEvent(`post-${i}`, note(i));
      await store.storeEvent(`post-${i}`, answer(i));
    }
    await store.storeEvent('_GET_stream', note(1));
    expect(store.count('post-0')).toBe(0);
    expect(store.count('post-97')).toBe(0);
    expect(store.count('post-99')).toBe(2);
    expect(await replay(store, standalone)).toEqual([note(1)]);
  });

  it('still replays the last answered request stream to a client that lost the response', async () => {
    const store = new SessionEventStore();
    const progress = await store.storeEvent('post-1', note(1));
    await store.storeEvent('post-1', answer(1));
    expect(await store.getStreamIdForEventId(progress)).toBe('post-1');
    expect(await replay(store, progress)).toEqual([answer(1)]);
  });

  it('keeps a request still waiting for its response while others are answered', async () => {
    const store = new SessionEventStore();
    await store.storeEvent('slow', note(1));
    for (let i = 0; i < 10; i += 1) {
      await store.storeEvent(`fast-${i}`, answer(i));
    }
    expect(store.count('slow')).toBe(1);
  });
});
