import { compileValidator, type CompiledValidator, type JsonSchema } from '@estate/contracts';
import { ENVELOPE_SCHEMA, type EventEnvelope } from './envelope';
import { isPlainEnvelope } from './envelope.fast-check';
import { EVENT_DATA_SCHEMAS, eventSchemaKey } from './event.schemas';
import { upcast } from './upcasters';

const validEnvelope = compileValidator(ENVELOPE_SCHEMA as unknown as JsonSchema);

export type EnvelopeCheck = { ok: true; envelope: EventEnvelope } | { ok: false; problem: string };

/**
 * What every consumer of an event log asks of a message: is it an envelope, of a type it reads, at
 * a version this code knows (older versions upcast first), with a payload on that version's schema.
 * The common case is judged by a quick structural test; anything else by the full validator, whose
 * error names the path.
 */
export function checkEnvelope(raw: unknown, types: ReadonlySet<string>): EnvelopeCheck {
  if (!isPlainEnvelope(raw)) {
    const shape = validEnvelope(raw);
    if (!shape.valid) return { ok: false, problem: `not an event envelope: ${describe(shape.errors)}` };
  }
  const envelope = upcast(raw as EventEnvelope);
  const validator = types.has(envelope.type) ? DATA_VALIDATORS.get(envelope.type)?.get(envelope.version) : undefined;
  if (validator === undefined) return { ok: false, problem: `not an event this consumer reads at a version it knows: ${eventSchemaKey(envelope.type, envelope.version)}` };
  const data = validator()(envelope.data);
  if (!data.valid) return { ok: false, problem: `${eventSchemaKey(envelope.type, envelope.version)} payload off its schema: ${describe(data.errors)}` };
  return { ok: true, envelope };
}

/**
 * type → version → its payload validator, compiled on first use: found without building a
 * `type@version` key per message (a rebuild checks hundreds of thousands). Made from the known
 * schemas only, so an odd type in a message adds nothing to it.
 */
const DATA_VALIDATORS: ReadonlyMap<string, ReadonlyMap<number, () => CompiledValidator>> = (() => {
  const byType = new Map<string, Map<number, () => CompiledValidator>>();
  for (const [key, schema] of Object.entries(EVENT_DATA_SCHEMAS)) {
    const at = key.lastIndexOf('@');
    let compiled: CompiledValidator | undefined;
    const versions = byType.get(key.slice(0, at)) ?? new Map<number, () => CompiledValidator>();
    versions.set(Number(key.slice(at + 1)), () => (compiled ??= compileValidator(schema as unknown as JsonSchema)));
    byType.set(key.slice(0, at), versions);
  }
  return byType;
})();

function describe(errors: ReadonlyArray<{ path: string; message: string }>): string {
  return errors.slice(0, 5).map((e) => `${e.path} ${e.message}`).join('; ');
}
