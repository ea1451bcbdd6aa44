import type { EventEnvelope } from './envelope';
import type { ServerRegisteredData, ServerRegisteredDataV1 } from './registry.events';

type Upcaster = (data: unknown) => unknown;

/** `type@fromVersion` → a function producing the payload of `fromVersion + 1`. */
const UPCASTERS: Readonly<Record<string, Upcaster>> = {
  'ServerRegistered@1': (data) => {
    const v1 = data as ServerRegisteredDataV1;
    const upgraded: ServerRegisteredData = {
      name: v1.name,
      namespace: v1.name,
      transport: 'streamable-http',
      url: v1.url,
      owner: v1.owner,
      allowSampling: false,
      allowElicitation: false,
    };
    return upgraded;
  },
};

/** Types with an upcaster at some version: any other envelope is already current (most, and no key to build). */
const LIFTED_TYPES: ReadonlySet<string> = new Set(Object.keys(UPCASTERS).map((key) => key.slice(0, key.lastIndexOf('@'))));

/** Lift an envelope to the newest payload version this code knows, one step at a time. */
export function upcast(envelope: EventEnvelope): EventEnvelope {
  if (!LIFTED_TYPES.has(envelope.type)) return envelope;
  let current = envelope;
  for (;;) {
    const step = UPCASTERS[`${current.type}@${current.version}`];
    if (!step) return current;
    current = { ...current, version: current.version + 1, data: step(current.data) };
  }
}
