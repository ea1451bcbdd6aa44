import { compileValidator, type JsonSchema } from '@estate/contracts';
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
  const key = eventSchemaKey(envelope.type, envelope.version);
  const schema = (EVENT_DATA_SCHEMAS as Record<string, unknown>)[key];
  if (!types.has(envelope.type) || schema === undefined) return { ok: false, problem: `not an event this consumer reads at a version it knows: ${key}` };
  const data = compileValidator(schema as JsonSchema)(envelope.data);
  if (!data.valid) return { ok: false, problem: `${key} payload off its schema: ${describe(data.errors)}` };
  return { ok: true, envelope };
}

function describe(errors: ReadonlyArray<{ path: string; message: string }>): string {
  return errors.slice(0, 5).map((e) => `${e.path} ${e.message}`).join('; ');
}
