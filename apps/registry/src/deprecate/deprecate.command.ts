import type { ToolCommand } from '../domain/tool.decider';

export type DeprecateToolVersion = Extract<ToolCommand, { type: 'DeprecateToolVersion' }>;

/** Fields as `POST …/deprecate` checked them (reason, optional sunset date and replacement). */
export function deprecateToolVersion(name: string, version: string, body: { reason: string; sunsetAt?: string; replacement?: string }): DeprecateToolVersion {
  return { type: 'DeprecateToolVersion', name, version, ...body };
}
