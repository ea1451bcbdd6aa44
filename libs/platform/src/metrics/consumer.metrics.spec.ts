import { InMemoryEventBus } from '../in-memory-event-bus';
import { ConsumerMonitor } from '../health/consumer.monitor';
import { registerConsumerMetrics } from './consumer.metrics';
import { serviceRegistry } from './service.registry';

describe('consumer metrics', () => {
  it('show lag, position and subscription per topic, group and partition as the monitor sees them at scrape time', async () => {
    const bus = new InMemoryEventBus();
    const monitor = new ConsumerMonitor(bus, { maxLag: 10, stallMs: 30_000, cacheMs: 0 });
    const registry = serviceRegistry('spec');
    registerConsumerMetrics(registry, monitor);
    let hold = true;
    const subscription = await monitor.watch(bus, () => 'reader').subscribe({
      topic: 't', groupId: 'g', fromBeginning: true,
      handle: async (m) => {
        if (hold && m.offset === '2') throw new Error('not yet');
      },
    });
    await bus.publish('t', [0, 1, 2, 3].map((i) => ({ key: `k${i}`, value: `v${i}` })));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const labels = 'consumer="reader",topic="t",group="g",partition="0",service="spec"';
    let text = await registry.metrics();
    expect(text).toContain(`estate_consumer_lag_messages{${labels}} 2`);
    expect(text).toContain(`estate_consumer_position{${labels}} 2`);
    expect(text).toContain('estate_consumer_subscribed{consumer="reader",topic="t",group="g",service="spec"} 1');
    hold = false;
    await new Promise((resolve) => setTimeout(resolve, 400));
    await subscription.stop();
    text = await registry.metrics();
    expect(text).toContain(`estate_consumer_lag_messages{${labels}} 0`);
    expect(text).toContain('estate_consumer_subscribed{consumer="reader",topic="t",group="g",service="spec"} 0');
    await bus.close();
  });
});
