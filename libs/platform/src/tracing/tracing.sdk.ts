import type * as Sdk from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Env } from '../env.reader';
import { noteTracingStarted } from './tracing';

/**
 * Tracing is off unless an exporter is named: OTEL_TRACES_EXPORTER, or an OTLP endpoint (which
 * means the OTLP exporter). Everything else is read by the SDK from the standard OTEL_* variables.
 */
export function tracingWanted(env: Env): boolean {
  const exporter = env.OTEL_TRACES_EXPORTER?.trim();
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (exporter) return exporter !== 'none';
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** The trace exporters the OpenTelemetry SDK for Node knows by name. */
const TRACE_EXPORTERS = ['otlp', 'zipkin', 'console', 'none'];

function unknownExporters(env: Env): string[] {
  const names = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
  return names.filter((name) => !TRACE_EXPORTERS.includes(name));
}

export interface Tracing {
  /** Sends the spans still buffered, then stops; bounded by the caller's stop deadline. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  /** Replaces the exporters named by the environment (tests hand in an in-memory exporter). */
  spanProcessors?: SpanProcessor[];
}

/**
 * Starts the OpenTelemetry SDK for one process, or returns undefined when tracing is off (the API
 * then stays a no-op). Call it before the services start: spans begun earlier are lost. Only
 * traces: no instrumentations, metrics or log exporters are switched on here.
 */
export function startTracing(env: Env, serviceName: string, options: TracingOptions = {}): Tracing | undefined {
  const unknown = unknownExporters(env);
  // The SDK only warns through a diagnostic logger nobody reads, and traces nothing: a typo would go unseen.
  if (unknown.length > 0) throw new Error(`OTEL_TRACES_EXPORTER names ${unknown.map((e) => `"${e}"`).join(', ')}; use ${TRACE_EXPORTERS.join(', ')} (comma-separated) or leave it unset`);
  if (!options.spanProcessors && !tracingWanted(env)) return undefined;
  // Loaded only when wanted: the SDK and its exporters would slow every process's start (the CLI's too).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof Sdk;
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME?.trim() || serviceName,
    // An endpoint without OTEL_TRACES_EXPORTER means OTLP, which is also the SDK's default exporter.
    ...(options.spanProcessors ? { spanProcessors: options.spanProcessors } : {}),
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  noteTracingStarted();
  return { shutdown: () => sdk.shutdown() };
}
