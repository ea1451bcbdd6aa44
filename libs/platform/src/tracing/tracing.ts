import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context } from '@opentelemetry/api';

export { SpanKind } from '@opentelemetry/api';
export type { Context as TraceContext } from '@opentelemetry/api';

/**
 * The only door the services use into tracing: the OpenTelemetry API, which does nothing until
 * tracing.sdk.ts registers a provider. Messages on a bus and rows in the event store carry the
 * W3C `traceparent` as a plain header, so a trace crosses processes and time.
 */
const tracer = () => trace.getTracer('estate');

/**
 * Whether startTracing ran in this process. Until then spans are skipped outright: even the API's
 * no-op spans cost about a microsecond each, and a tools/call makes four.
 */
let started = false;

export function noteTracingStarted(): void {
  started = true;
}

export function tracingStarted(): boolean {
  return started;
}

export interface SpanOptions {
  /** Continue this context instead of the active one (a message's, a stored event's). */
  parent?: Context;
  kind?: SpanKind;
}

/** Runs `work` inside a new span; a throw marks the span as failed and is passed on. */
export async function withSpan<T>(name: string, attributes: Attributes, work: () => Promise<T> | T, options: SpanOptions = {}): Promise<T> {
  if (!started) return work();
  const parent = options.parent ?? context.active();
  return tracer().startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes }, parent, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Adds `traceparent` (and `tracestate`) of the active span to a message's headers; unchanged when nothing is traced. */
export function injectTraceHeaders<H extends Record<string, string>>(headers: H, from?: Context): H {
  // Before startTracing the API's propagator is a no-op: skip it (and context.active()), as withSpan does; the edge calls this twice per tools/call.
  if (!started) return headers;
  propagation.inject(from ?? context.active(), headers);
  return headers;
}

type HeaderBag = Readonly<Record<string, string | string[] | undefined>>;

/** The context a message or request arrived with; the empty root context when it carried none. */
export function extractTraceContext(headers: HeaderBag | undefined): Context {
  if (!headers) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, headers, {
    keys: (carrier) => Object.keys(carrier),
    get: (carrier, key) => {
      const value = carrier[key] ?? carrier[key.toLowerCase()];
      return Array.isArray(value) ? value[0] : value;
    },
  });
}

/** The active span's `traceparent`, to store beside an event that will be sent later by another process. */
export function currentTraceparent(): string | undefined {
  return injectTraceHeaders<Record<string, string>>({}).traceparent;
}

/** The ids of the active span, for log lines; undefined when nothing is traced. */
export function activeTraceIds(): { traceId: string; spanId: string } | undefined {
  const span = trace.getActiveSpan();
  const ids = span?.spanContext();
  if (!ids || !trace.isSpanContextValid(ids)) return undefined;
  return { traceId: ids.traceId, spanId: ids.spanId };
}

/** Runs `work` with `parent` as the active context (a request's, carried across a callback). */
export function withTraceContext<T>(parent: Context, work: () => T): T {
  return context.with(parent, work);
}

export interface OpenSpan {
  /** The context to inject into the message this span stands for. */
  readonly context: Context;
  end(error?: unknown): void;
}

/** A span its caller ends: for work done for many traces at once (a batch of messages sent together). */
export function openSpan(name: string, attributes: Attributes, options: SpanOptions = {}): OpenSpan {
  const parent = options.parent ?? context.active();
  if (!started) return { context: parent, end: () => undefined };
  const span = tracer().startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes }, parent);
  return {
    context: trace.setSpan(parent, span),
    end: (error?: unknown) => {
      if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      span.end();
    },
  };
}
