import type { ToolCommand } from '../domain/tool.decider';

export type RetireToolVersion = Extract<ToolCommand, { type: 'RetireToolVersion' }>;

export function retireToolVersion(name: string, version: string, reason: string): RetireToolVersion {
  return { type: 'RetireToolVersion', name, version, reason };
}
