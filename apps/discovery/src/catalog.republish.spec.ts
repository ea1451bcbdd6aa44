import pino from 'pino';
import type { CatalogEntry } from '@estate/events';
import type { ChangedVersions } from './catalog.publisher';
import { CatalogRepublisher } from './catalog.republish';

const entry = (name: string, position: number) => ({ name, position, upstream: { server: 's' }, versions: [] }) as unknown as CatalogEntry;
const headers = (cause: string) => () => ({ 'x-correlation-id': cause });

describe('catalog republish pacing', () => {
  let sent: Array<{ names: string[]; read: boolean; cause: string[]; positions?: number[] }>;
  let versionsSent: Array<Array<string[] | 'all'>>;
  let failNext: boolean;
  const send = async (names: string[], headersOf: (name: string) => Record<string, string>, entries?: CatalogEntry[], changed?: ChangedVersions) => {
    if (failNext) {
      failNext = false;
      throw new Error('bus down');
    }
    sent.push({ names, read: entries === undefined, cause: names.map((n) => headersOf(n)['x-correlation-id']), ...(entries ? { positions: entries.map((e) => e.position) } : {}) });
    versionsSent.push(names.map((n) => {
      const versions = changed?.(n);
      return versions === undefined ? 'all' : [...versions].sort();
    }));
  };
  const changes = (versions: Record<string, string[]>): ChangedVersions => (name) => (versions[name] ? new Set(versions[name]) : undefined);

  beforeEach(() => {
    jest.useFakeTimers();
    sent = [];
    versionsSent = [];
    failNext = false;
  });
  afterEach(() => jest.useRealTimers());

  it('sends a lone change at once and holds a busy tool until its gap is over, then sends it once, as committed by then', async () => {
    const pacer = new CatalogRepublisher(send, 500, pino({ level: 'silent' }));
    await pacer.offer(['a', 'b'], headers('first'), [entry('a', 1), entry('b', 1)]);
    expect(sent).toEqual([{ names: ['a', 'b'], read: false, cause: ['first', 'first'], positions: [1, 1] }]);
    await jest.advanceTimersByTimeAsync(100);
    await pacer.offer(['a'], headers('second'), [entry('a', 2)]);
    await pacer.offer(['a', 'c'], headers('third'), [entry('a', 3), entry('c', 1)]);
    // c was quiet: it goes at once; a waits for the rest of its gap.
    expect(sent.slice(1)).toEqual([{ names: ['c'], read: false, cause: ['third'], positions: [1] }]);
    await jest.advanceTimersByTimeAsync(399);
    expect(sent).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(1);
    expect(sent.slice(2)).toEqual([{ names: ['a'], read: false, cause: ['third'], positions: [3] }]);
    await jest.advanceTimersByTimeAsync(5000);
    expect(sent).toHaveLength(3);
  });

  it('sends a held tool with the versions every held batch changed, also after a failed send', async () => {
    const pacer = new CatalogRepublisher(send, 500, pino({ level: 'silent' }));
    await pacer.offer(['a', 'b'], headers('first'), [entry('a', 1), entry('b', 1)], changes({ a: ['1.0.0'], b: ['1.0.0'] }));
    await pacer.offer(['a', 'b'], headers('second'), [entry('a', 2), entry('b', 2)], changes({ a: ['1.1.0'], b: ['1.1.0'] }));
    await pacer.offer(['a'], headers('third'), [entry('a', 3)], changes({ a: ['1.2.0', '1.0.0'] }));
    // A batch that did not say which versions it changed: every version goes.
    await pacer.offer(['b'], headers('fourth'), [entry('b', 3)]);
    failNext = true;
    await jest.advanceTimersByTimeAsync(500);
    await pacer.offer(['a'], headers('fifth'), [entry('a', 4)], changes({ a: ['1.3.0'] }));
    await jest.advanceTimersByTimeAsync(1500);
    expect(versionsSent).toEqual([[['1.0.0'], ['1.0.0']], [['1.0.0', '1.1.0', '1.2.0', '1.3.0'], 'all']]);
    expect(sent[1]).toEqual({ names: ['a', 'b'], read: false, cause: ['fifth', 'fourth'], positions: [4, 3] });
  });

  it('never holds anything with a gap of 0', async () => {
    const pacer = new CatalogRepublisher(send, 0, pino({ level: 'silent' }));
    for (let i = 1; i <= 3; i += 1) await pacer.offer(['a'], headers(`c${i}`), [entry('a', i)]);
    expect(sent.map((s) => s.cause[0])).toEqual(['c1', 'c2', 'c3']);
  });

  it('keeps a held tool when its send fails and sends it on the retry; stop sends what is held at once', async () => {
    const pacer = new CatalogRepublisher(send, 500, pino({ level: 'silent' }));
    await pacer.offer(['a'], headers('first'), [entry('a', 1)]);
    await pacer.offer(['a'], headers('second'), [entry('a', 2)]);
    failNext = true;
    await jest.advanceTimersByTimeAsync(500);
    expect(sent).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1500);
    expect(sent.slice(1)).toEqual([{ names: ['a'], read: false, cause: ['second'], positions: [2] }]);
    await pacer.offer(['b'], headers('third'), [entry('b', 1)]);
    // A batch that did not know the entry: it is read back when sent.
    await pacer.offer(['b'], headers('fourth'));
    await pacer.stop();
    expect(sent.slice(3)).toEqual([{ names: ['b'], read: true, cause: ['fourth'] }]);
  });
});
