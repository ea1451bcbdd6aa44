import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { BusMessage } from '../event-bus.port';
import { currentCorrelationId } from './correlation';
import { withMessageSpan } from './message.trace';
import { activeTraceIds } from './tracing';
import { startTracing, type Tracing } from './tracing.sdk';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SENDER_SPAN = 'b7ad6b7169203331';

function message(value: string | null, headers: Record<string, string>): BusMessage {
  return { topic: 'estate.registry.events', partition: 0, offset: '41', key: 'tool:bank.lookup', value, headers };
}

describe('handling a bus message inside its trace', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing | undefined;

  beforeAll(() => {
    tracing = startTracing({}, 'message-spec', { spanProcessors: [new SimpleSpanProcessor(exporter)] });
  });

  afterAll(async () => {
    await tracing?.shutdown();
  });

  beforeEach(() => exporter.reset());

  it("continues the sender's trace and knows the envelope's correlation id while the handler runs", async () => {
    const envelope = JSON.stringify({ id: 'e1', type: 'ToolVersionPublished', correlationId: 'release-7' });
    const seen = await withMessageSpan('discovery apply', message(envelope, { traceparent: `00-${TRACE_ID}-${SENDER_SPAN}-01` }), async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return { ids: activeTraceIds(), correlationId: currentCorrelationId() };
    });
    expect(seen.ids?.traceId).toBe(TRACE_ID);
    expect(seen.correlationId).toBe('release-7');
    const [span] = exporter.getFinishedSpans();
    expect(span).toMatchObject({ name: 'discovery apply', attributes: { 'messaging.destination.name': 'estate.registry.events', 'messaging.kafka.offset': '41' } });
    expect(span.parentSpanContext?.spanId).toBe(SENDER_SPAN);
  });

  it('starts a trace of its own for a message without one, and takes no correlation id from a value that is not an envelope', async () => {
    for (const value of [null, 'not json', '"a string"', JSON.stringify({ correlationId: 42 })]) {
      const seen = await withMessageSpan('audit record calls', message(value, {}), async () => ({ ids: activeTraceIds(), correlationId: currentCorrelationId() }));
      expect(seen.ids?.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(seen.ids?.traceId).not.toBe(TRACE_ID);
      expect(seen.correlationId).toBeUndefined();
    }
    expect(exporter.getFinishedSpans().every((s) => s.parentSpanContext === undefined)).toBe(true);
  });

  it('marks the span failed and passes the failure on', async () => {
    await expect(withMessageSpan('discovery apply', message(null, {}), () => Promise.reject(new Error('database down')))).rejects.toThrow('database down');
    expect(exporter.getFinishedSpans()[0].status).toMatchObject({ code: 2, message: 'database down' });
  });
});
