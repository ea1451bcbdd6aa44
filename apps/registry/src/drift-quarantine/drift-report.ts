import { checkEnvelope, type ToolVersionDriftDetectedData } from '@estate/events';
import type { AppendMeta } from '../store/event-store.port';
import { quarantineToolVersion, type QuarantineToolVersion } from '../quarantine/quarantine.command';

export type DriftReport = { ok: true; command: QuarantineToolVersion; meta: AppendMeta } | { ok: false; problem: string };

const DRIFT_TYPES: ReadonlySet<string> = new Set(['ToolVersionDriftDetected']);

/** Reads one `estate.drift` message into the quarantine it asks for, or says what is wrong with it. */
export function readDriftReport(value: string | null): DriftReport {
  let raw: unknown;
  try {
    raw = JSON.parse(value ?? 'null');
  } catch {
    return { ok: false, problem: 'the message is not JSON' };
  }
  const checked = checkEnvelope(raw, DRIFT_TYPES);
  if (!checked.ok) return checked;
  const { envelope } = checked;
  const data = envelope.data as ToolVersionDriftDetectedData;
  return { ok: true, command: quarantineToolVersion(data.name, data.version, data.reason), meta: { actor: envelope.actor, correlationId: envelope.correlationId } };
}
