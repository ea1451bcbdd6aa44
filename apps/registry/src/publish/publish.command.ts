import { hasUnstorableText } from '@estate/contracts';
import type { ServerRegisteredData } from '@estate/events';
import type { ToolCommand, ToolEvent } from '../domain/tool.decider';

export type PublishToolVersion = Extract<ToolCommand, { type: 'PublishToolVersion' }>;

/** A raw spec (checked by the decider, not here) and the server it names, if that one is registered. */
export function publishToolVersion(spec: unknown, server: ServerRegisteredData | undefined): PublishToolVersion {
  return { type: 'PublishToolVersion', spec, server };
}

/** What publish and check answer: what was decided, never whether it was stored. */
export interface PublishReport {
  name: string;
  version: string;
  bump: string;
  changes: unknown[];
}

/** The decided event's own fields, passed through: what the classifier reports reaches the caller as it is. */
export function publishReport(events: ToolEvent[]): PublishReport {
  const [published] = events;
  if (published?.type !== 'ToolVersionPublished') throw new Error('publish decided an unexpected event');
  const { spec, ...report } = published.data;
  return { name: spec.name, version: spec.version, ...report };
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
