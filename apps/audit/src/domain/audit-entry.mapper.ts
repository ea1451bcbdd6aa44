import { isJsonObject as isRecord } from '@estate/protocol';
import { isPlainUtcDateTime, upcast, type EventEnvelope } from '@estate/events';
import { UNNAMED_REFUSAL } from './trail-outcomes';

/** Which log an envelope came from; decides how its fields are read. */
export type AuditSource = 'registry' | 'calls';

/**
 * The content of one trail entry: everything the hash covers. `seq`, `prev_hash`, `hash` and
 * `recorded_at` are assigned when the entry is appended.
 */
export interface AuditEntryContent {
  eventId: string;
  topic: string;
  type: string;
  stream: string;
  tool: string | null;
  version: string | null;
  /** The caller for call events, the actor for registry events. */
  principal: string;
  /** ok / tool_error / upstream_error / cancelled / refused:<reason> for calls; null for registry events. */
  outcome: string | null;
  /** Normalized to `Date#toISOString()` so the value survives a timestamptz round trip unchanged. */
  occurredAt: string;
  /** The envelope exactly as received (not upcast): the evidence. */
  payload: EventEnvelope;
}

/** A trail entry where it sits in the chain: its content, its seq and the two hashes that link it. */
export interface AuditEntry extends AuditEntryContent {
  seq: number;
  prevHash: string;
  hash: string;
}

export type ParsedEnvelope = { ok: true; envelope: EventEnvelope } | { ok: false; reason: string };


const str = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

/** Checks the envelope shape enough to record it; a message failing this is dead-lettered, never retried. */
export function parseEnvelope(raw: string | null): ParsedEnvelope {
  let value: unknown;
  try {
    value = JSON.parse(raw ?? 'null');
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  if (!isRecord(value)) return { ok: false, reason: 'not a JSON object' };
  for (const field of ['id', 'type', 'stream', 'occurredAt'] as const) {
    if (str(value[field]) === null) return { ok: false, reason: `missing or empty "${field}"` };
  }
  if (typeof value.actor !== 'string') return { ok: false, reason: 'missing "actor"' };
  if (!Number.isInteger(value.version)) return { ok: false, reason: 'missing integer "version"' };
  if (!isRecord(value.data)) return { ok: false, reason: 'missing object "data"' };
  if (!isIsoTime(value.occurredAt as string)) {
    const time = Date.parse(value.occurredAt as string);
    // timestamptz holds years 1 to 294276 but ISO text past 9999 is not what PostgreSQL parses.
    if (Number.isNaN(time) || !(time >= MIN_TIME && time <= MAX_TIME)) return { ok: false, reason: '"occurredAt" is not a date from year 1 to 9999' };
  }
  return { ok: true, envelope: value as unknown as EventEnvelope };
}

/**
 * A real moment from year 1 written exactly as `Date#toISOString()` writes it, what every estate
 * service sends: no date to parse, and the text is already the normalized form.
 */
function isIsoTime(text: string): boolean {
  return text.length === 24 && isPlainUtcDateTime(text) && text >= '0001';
}

const MIN_TIME = Date.parse('0001-01-01T00:00:00Z');
const MAX_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999);


/** Maps a received envelope to the trail entry's content. Pure: same input, same entry, same hash. */
export function toAuditEntry(source: AuditSource, topic: string, envelope: EventEnvelope): AuditEntryContent {
  const fields = source === 'registry' ? registryFields(envelope) : callFields(envelope);
  return {
    eventId: envelope.id,
    topic,
    type: envelope.type,
    stream: fields.stream,
    tool: fields.tool,
    version: fields.version,
    principal: fields.principal,
    outcome: fields.outcome,
    occurredAt: isIsoTime(envelope.occurredAt) ? envelope.occurredAt : new Date(envelope.occurredAt).toISOString(),
    payload: envelope,
  };
}

type MappedFields = Pick<AuditEntryContent, 'stream' | 'tool' | 'version' | 'principal' | 'outcome'>;

function registryFields(raw: EventEnvelope): MappedFields {
  // Upcast only to read the fields: old payload versions are recorded as they were sent.
  const envelope = upcast(raw);
  const data = isRecord(envelope.data) ? envelope.data : {};
  const base = { stream: envelope.stream, principal: envelope.actor, outcome: null };
  if (envelope.type === 'ServerRegistered') {
    return { ...base, stream: str(data.name) ?? envelope.stream, tool: null, version: null };
  }
  if (envelope.type === 'ToolVersionPublished') {
    const spec = isRecord(data.spec) ? data.spec : {};
    return { ...base, tool: str(spec.name), version: str(spec.version) };
  }
  return { ...base, tool: str(data.name), version: str(data.version) };
}

function callFields(envelope: EventEnvelope): MappedFields {
  const data = isRecord(envelope.data) ? envelope.data : {};
  const refused = envelope.type === 'ToolCallRefused' || envelope.type === 'UpstreamRequestRefused';
  const reason = str(data.reason) ?? UNNAMED_REFUSAL;
  return {
    stream: envelope.stream,
    tool: str(data.tool),
    version: str(data.version),
    principal: str(data.principal) ?? envelope.actor,
    outcome: refused ? `refused:${reason}` : str(data.outcome),
  };
}
