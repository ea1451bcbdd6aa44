import { trace } from '@opentelemetry/api';
import { currentCorrelationId, withCorrelation } from './correlation';
import { activeTraceIds, currentTraceparent, extractTraceContext, injectTraceHeaders, withSpan } from './tracing';
import { startTracing, tracingWanted } from './tracing.sdk';

describe('tracing is off without OTEL variables', () => {
  it('wants an exporter or an OTLP endpoint, and "none" or OTEL_SDK_DISABLED turn it off', () => {
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted({ OTEL_SERVICE_NAME: 'estate', OTEL_PROPAGATORS: 'tracecontext' })).toBe(false);
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' })).toBe(true);
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(false);
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' })).toBe(false);
  });

  it('refuses to start with an exporter the SDK does not know, naming it (the SDK would trace nothing and say so to no one)', () => {
    expect(() => startTracing({ OTEL_TRACES_EXPORTER: 'bogus' }, 'estate-test')).toThrow('OTEL_TRACES_EXPORTER names "bogus"; use otlp, zipkin, console, none');
    expect(() => startTracing({ OTEL_TRACES_EXPORTER: 'console, otpl' }, 'estate-test')).toThrow('OTEL_TRACES_EXPORTER names "otpl"');
    expect(startTracing({ OTEL_TRACES_EXPORTER: 'none' }, 'estate-test')).toBeUndefined();
  });

  it('starts no SDK, makes no spans and adds no headers', async () => {
    expect(startTracing({}, 'estate-test')).toBeUndefined();
    let inside: unknown = 'not run';
    const answer = await withSpan('work', { tool: 'bank.lookup' }, () => {
      inside = activeTraceIds();
      return 42;
    });
    expect(answer).toBe(42);
    expect(inside).toBeUndefined();
    expect(currentTraceparent()).toBeUndefined();
    expect(injectTraceHeaders({ 'estate-type': 'ToolCallCompleted' })).toEqual({ 'estate-type': 'ToolCallCompleted' });
    // No async context is tracked at all, not even for correlation ids: promises keep their speed.
    expect(withCorrelation('release-7', () => currentCorrelationId())).toBeUndefined();
    // Nothing registered: the API's tracer is still the no-op one.
    expect(trace.getTracer('estate').startSpan('probe').isRecording()).toBe(false);
  });

  it('passes a failure of the work on unchanged', async () => {
    await expect(withSpan('work', {}, () => Promise.reject(new Error('upstream down')))).rejects.toThrow('upstream down');
  });

  it('reads no context from messages without a traceparent, or with a malformed one', () => {
    expect(trace.getSpanContext(extractTraceContext({}))).toBeUndefined();
    expect(trace.getSpanContext(extractTraceContext({ traceparent: 'garbage' }))).toBeUndefined();
    expect(trace.getSpanContext(extractTraceContext(undefined))).toBeUndefined();
  });
});
