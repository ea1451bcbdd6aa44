import { CURRENT_REGISTRY_EVENT_VERSIONS, type EventEnvelope } from '@estate/events';
import { bankSpecs } from '../../examples/bank/bank.specs';

/** Tools in every generated log: the catalog a rebuild ends with is the same size whatever the log's length. */
export const LOG_TOOLS = 1000;
const VERSIONS = 5;
const SERVER = 'bench';
const AT = '2026-11-30T12:00:00.000Z';

/**
 * A registry log of `total` events as the relay writes it: one server, then every tool published
 * in five versions, then deprecations of those versions over and over (the kind of fact a long
 * log is mostly made of). The catalog it folds into has a fixed size, so what grows with the log
 * in a rebuild is the rebuild's own cost, which is what the benchmark is after.
 */
export function* registryLog(total: number): Generator<EventEnvelope> {
  const positions = new Map<string, number>();
  const envelope = (stream: string, type: keyof typeof CURRENT_REGISTRY_EVENT_VERSIONS, data: unknown, n: number): EventEnvelope => {
    const position = positions.get(stream) ?? 0;
    positions.set(stream, position + 1);
    const id = `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
    return { id, type, version: CURRENT_REGISTRY_EVENT_VERSIONS[type], stream, position, occurredAt: AT, actor: 'bench', correlationId: `bench-${n}`, data } as EventEnvelope;
  };
  const [template] = bankSpecs(SERVER);
  let n = 0;
  yield envelope(`server:${SERVER}`, 'ServerRegistered', {
    name: SERVER, namespace: SERVER, transport: 'streamable-http', url: 'http://127.0.0.1:9/mcp', owner: 'bench-team', allowSampling: false, allowElicitation: false,
  }, n++);
  for (let v = 0; v < VERSIONS && n < total; v += 1) {
    for (let t = 0; t < LOG_TOOLS && n < total; t += 1) {
      const spec = { ...template, name: `${SERVER}.t${t}`, version: `1.${v}.0` };
      yield envelope(`tool:${spec.name}`, 'ToolVersionPublished', { spec, bump: v === 0 ? 'initial' : 'minor', changes: [] }, n++);
    }
  }
  while (n < total) {
    const t = n % LOG_TOOLS;
    const version = `1.${Math.floor(n / LOG_TOOLS) % VERSIONS}.0`;
    yield envelope(`tool:${SERVER}.t${t}`, 'ToolVersionDeprecated', { name: `${SERVER}.t${t}`, version, reason: `superseded (event ${n})` }, n++);
  }
}

/** The generated log in batches of `size`, so neither a publisher nor an insert holds the whole log. */
export function* batches<T>(items: Iterable<T>, size: number): Generator<T[]> {
  let batch: T[] = [];
  for (const item of items) {
    batch.push(item);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
