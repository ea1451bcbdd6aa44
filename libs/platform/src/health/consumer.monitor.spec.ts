import { InMemoryEventBus } from '../in-memory-event-bus';
import { runChecks } from './health.check';
import { ConsumerMonitor } from './consumer.monitor';

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
const messages = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `v${i}` }));

describe('ConsumerMonitor', () => {
  let clock: number;
  let bus: InMemoryEventBus;
  let monitor: ConsumerMonitor;

  beforeEach(() => {
    clock = 1_000_000;
    bus = new InMemoryEventBus();
    monitor = new ConsumerMonitor(bus, { maxLag: 2, stallMs: 30_000, now: () => clock, cacheMs: 0 });
  });

  afterEach(() => bus.close());

  it('reports the last applied offset and no lag once a consumer has caught up', async () => {
    const watched = monitor.watch(bus, () => 'reader');
    await watched.subscribe({ topic: 't', groupId: 'g', fromBeginning: true, handle: async () => undefined });
    await bus.publish('t', messages(3));
    await settle();
    const [report] = await monitor.report();
    expect(report).toMatchObject({ name: 'reader', topic: 't', groupId: 'g', subscribed: true });
    expect(report.partitions).toEqual([expect.objectContaining({ partition: 0, position: '3', end: '3', lag: 0, lastAppliedOffset: '2' })]);
    expect((await runChecks(monitor.checks(['reader']), 1000)).failing).toEqual([]);
  });

  it('fails lag and progress while the handler keeps failing on one offset, with its error, and recovers', async () => {
    let broken = true;
    const watched = monitor.watch(bus, () => 'reader');
    await bus.publish('t', messages(5));
    await watched.subscribe({
      topic: 't', groupId: 'g', fromBeginning: true,
      handle: async (m) => {
        if (broken && m.offset === '1') throw new Error('relation "catalog" does not exist');
      },
    });
    await settle();
    clock += 31_000;
    const readiness = await runChecks(monitor.checks(['reader']), 1000);
    expect(readiness.failing).toEqual(['reader.lag', 'reader.progress']);
    expect(readiness.checks.find((c) => c.name === 'reader.progress')?.reason).toMatch(/failing on offset 1 for 31 s .*relation "catalog" does not exist/);
    expect(readiness.checks.find((c) => c.name === 'reader.lag')?.reason).toMatch(/partition 0 is 4 messages behind \(bound 2\)/);
    broken = false;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await runChecks(monitor.checks(['reader']), 1000)).failing).toEqual([]);
  });

  it('names the first unapplied message when a batch delivered again starts below the position', async () => {
    const tracked = monitor.track('reader', {
      topic: 't', groupId: 'g', fromBeginning: true, handle: async () => undefined,
      handleBatch: async (batch) => {
        if (batch.messages.some((m) => m.offset === '1')) throw new Error('refused');
      },
    });
    const batch = (from: number, to: number) => ({
      topic: 't', partition: 0,
      messages: Array.from({ length: to - from + 1 }, (_, i) => ({ topic: 't', partition: 0, offset: String(from + i), key: null, value: null, headers: {} })),
    });
    await tracked.handleBatch!(batch(0, 0));
    await expect(tracked.handleBatch!(batch(0, 3))).rejects.toThrow('refused');
    clock += 31_000;
    const readiness = await runChecks(monitor.checks(['reader']), 1000);
    expect(readiness.checks.find((c) => c.name === 'reader.progress')?.reason).toMatch(/failing on offset 1 for 31 s/);
  });

  it('says a consumer never subscribed, and leaves untracked subscriptions alone', async () => {
    const watched = monitor.watch(bus, (o) => (o.groupId === 'live' ? 'reader' : undefined));
    await watched.subscribe({ topic: 't', groupId: 'rebuild-1', fromBeginning: true, handle: async () => undefined });
    const readiness = await runChecks(monitor.checks(['reader']), 1000);
    expect(readiness.checks).toEqual([
      { name: 'reader.subscribed', state: 'fail', reason: 'never subscribed' },
      { name: 'reader.lag', state: 'fail', reason: 'never subscribed' },
      { name: 'reader.progress', state: 'fail', reason: 'never subscribed' },
    ]);
    expect(await monitor.report()).toEqual([]);
  });

  it('takes the stored position before the first message of a run (a restarted group that is caught up)', async () => {
    await bus.publish('t', messages(4));
    const first = await bus.subscribe({ topic: 't', groupId: 'g', fromBeginning: true, handle: async () => undefined });
    await settle();
    await first.stop();
    await monitor.watch(bus, () => 'reader').subscribe({ topic: 't', groupId: 'g', fromBeginning: true, handle: async () => undefined });
    const [report] = await monitor.report();
    expect(report.partitions[0]).toMatchObject({ position: '4', lag: 0, lastAppliedOffset: null });
  });

  it('calls a consumer stuck that holds one message too long', async () => {
    let release!: () => void;
    const watched = monitor.watch(bus, () => 'reader');
    await watched.subscribe({ topic: 't', groupId: 'g', fromBeginning: true, ownOffsets: async () => '0', handle: () => new Promise<void>((resolve) => (release = resolve)) });
    await bus.publish('t', messages(1));
    await settle();
    clock += 30_000;
    const busy = await runChecks(monitor.checks(['reader']), 1000);
    expect(busy.checks.find((c) => c.name === 'reader.progress')?.reason).toMatch(/busy with offset 0 for 30 s/);
    release();
    await settle();
    expect((await runChecks(monitor.checks(['reader']), 1000)).failing).toEqual([]);
  });

  it('marks a stopped subscription as not subscribed, and stuck once messages have waited for it the stall time', async () => {
    const subscription = await monitor.watch(bus, () => 'reader').subscribe({ topic: 't', groupId: 'g', fromBeginning: true, handle: async () => undefined });
    await subscription.stop();
    await bus.publish('t', messages(1));
    expect((await runChecks(monitor.checks(['reader']), 1000)).failing).toEqual(['reader.subscribed']);
    clock += 30_000;
    const readiness = await runChecks(monitor.checks(['reader']), 1000);
    expect(readiness.failing).toEqual(['reader.subscribed', 'reader.progress']);
    expect(readiness.checks.find((c) => c.name === 'reader.progress')?.reason).toBe('partition 0: 1 messages wait and none was handled for 30 s');
  });
});
