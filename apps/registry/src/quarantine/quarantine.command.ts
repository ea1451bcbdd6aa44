import type { ToolCommand } from '../domain/tool.decider';

export type QuarantineToolVersion = Extract<ToolCommand, { type: 'QuarantineToolVersion' }>;

export function quarantineToolVersion(name: string, version: string, reason: string): QuarantineToolVersion {
  return { type: 'QuarantineToolVersion', name, version, reason };
}
