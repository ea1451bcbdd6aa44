import { AppendBatcher, type PendingAppend } from './append.batcher';

const pending = (streamId: string, bytes = 10): PendingAppend => ({ streamId, expectedVersion: 0, stamped: [], data: [], traceparent: null, bytes });

describe('AppendBatcher', () => {
  it('writes a lone append at once and groups those that arrive meanwhile, one per stream, each told its own fate', async () => {
    const batches: string[][] = [];
    let release: () => void = () => undefined;
    const batcher = new AppendBatcher(async (batch) => {
      batches.push(batch.map((a) => a.streamId));
      if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return new Set(batch.filter((a) => a.streamId !== 'tool:moved').map((a) => a.streamId));
    });
    const first = batcher.append(pending('tool:a'));
    const during = ['tool:b', 'tool:c', 'tool:b', 'tool:moved'].map((s) => batcher.append(pending(s)));
    release();
    expect(await first).toBe(true);
    expect(await Promise.all(during)).toEqual([true, true, true, false]);
    expect(batches).toEqual([['tool:a'], ['tool:b', 'tool:c', 'tool:moved'], ['tool:b']]);
  });

  it('keeps a batch within its byte budget, but always writes at least one append', async () => {
    const batches: string[][] = [];
    let release: () => void = () => undefined;
    const batcher = new AppendBatcher(async (batch) => {
      batches.push(batch.map((a) => a.streamId));
      if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return new Set(batch.map((a) => a.streamId));
    }, 256, 100);
    const all = [batcher.append(pending('s:0')), ...[60, 30, 30, 500].map((bytes, i) => batcher.append(pending(`s:${i + 1}`, bytes)))];
    release();
    await Promise.all(all);
    expect(batches).toEqual([['s:0'], ['s:1', 's:2'], ['s:3'], ['s:4']]);
  });

  it('fails every append of a batch whose write fails, and goes on with the next', async () => {
    let calls = 0;
    const batcher = new AppendBatcher(async (batch) => {
      calls += 1;
      if (calls === 1) throw new Error('connection lost');
      return new Set(batch.map((a) => a.streamId));
    });
    await expect(batcher.append(pending('tool:a'))).rejects.toThrow('connection lost');
    await expect(batcher.append(pending('tool:a'))).resolves.toBe(true);
  });
});
