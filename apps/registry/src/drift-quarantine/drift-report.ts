import type { EventEnvelope, ToolVersionDriftDetectedData } from '@estate/events';
import type { AppendMeta } from '../store/event-store.port';
import { quarantineToolVersion, type QuarantineToolVersion } from '../quarantine/quarantine.command';

export type DriftReport = { ok: true; command: QuarantineToolVersion; meta: AppendMeta } | { ok: false; problem: string };

const text = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** Reads one `estate.drift` message into the quarantine it asks for, or says what is wrong with it. */
export function readDriftReport(value: string | null): DriftReport {
  let envelope: Partial<EventEnvelope>;
  try {
    envelope = JSON.parse(value ?? 'null') as Partial<EventEnvelope>;
  } catch {
    return { ok: false, problem: 'the message is not JSON' };
  }
  if (envelope?.type !== 'ToolVersionDriftDetected' || envelope.version !== 1) return { ok: false, problem: `not a ToolVersionDriftDetected@1 event (${String(envelope?.type)}@${String(envelope?.version)})` };
  const data = (envelope.data ?? {}) as Partial<ToolVersionDriftDetectedData>;
  if (!text(data.name) || !text(data.version) || !text(data.reason)) return { ok: false, problem: '/data must name the tool, the version and a reason' };
  const actor = text(envelope.actor) ? envelope.actor : 'estate-edge';
  const correlationId = text(envelope.correlationId) ? envelope.correlationId : (envelope.id ?? 'none');
  return { ok: true, command: quarantineToolVersion(data.name, data.version, data.reason), meta: { actor, correlationId } };
}
