import { hasUnstorableText } from '@estate/contracts';
import type { ServerRegisteredData } from '@estate/events';
import { publishReport, type PublishReport } from '../domain/publish-report';
import type { ClassifyChange, ToolCommand, ToolEvent, ToolState } from '../domain/tool.decider';

export type PublishToolVersion = Extract<ToolCommand, { type: 'PublishToolVersion' }>;

/** A raw spec (checked by the decider, not here) and the server it names, if that one is registered. */
export function publishToolVersion(spec: unknown, server: ServerRegisteredData | undefined): PublishToolVersion {
  return { type: 'PublishToolVersion', spec, server };
}

/**
 * What publish and check answer: what was decided, never whether it was stored, with the
 * ESTATE_COMPAT policy it was decided under and what the strict policy says (domain/publish-report.ts).
 */
export interface PublishAnswer extends PublishReport {
  name: string;
  version: string;
  bump: string;
}

/**
 * The decided event's name, version and bump, and the classifier's full report against `before`
 * (the state the decision was made on): every change with its strict verdict, which the stored
 * event leaves out. `classify` is the decider's own (cached), so the pair is not classified twice.
 */
export function publishAnswer(events: ToolEvent[], before: ToolState, classify: ClassifyChange): PublishAnswer {
  const [published] = events;
  if (published?.type !== 'ToolVersionPublished') throw new Error('publish decided an unexpected event');
  const { spec, bump } = published.data;
  return { name: spec.name, version: spec.version, bump, ...publishReport(before, spec, classify) };
}

/** The stream a spec names; a name PostgreSQL cannot store names none, and the decider reports it with its path. */
export function toolNameOf(spec: unknown): string | undefined {
  const name = (spec as { name?: unknown } | null)?.name;
  return typeof name === 'string' && name.length > 0 && name.length <= 128 && !hasUnstorableText(name) ? name : undefined;
}

export function upstreamServerOf(spec: unknown): string | undefined {
  const server = (spec as { upstream?: { server?: unknown } } | null)?.upstream?.server;
  return typeof server === 'string' && server.length <= 128 && !hasUnstorableText(server) ? server : undefined;
}
