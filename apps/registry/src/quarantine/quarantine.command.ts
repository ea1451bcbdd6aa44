import type { Principal } from '@estate/contracts';
import type { ToolCommand } from '../domain/tool.decider';

export type QuarantineToolVersion = Extract<ToolCommand, { type: 'QuarantineToolVersion' }>;

/** `viewer`: the caller when it does not read governance; it may quarantine only versions it may see. */
export function quarantineToolVersion(name: string, version: string, reason: string, viewer?: Principal): QuarantineToolVersion {
  return { type: 'QuarantineToolVersion', name, version, reason, ...(viewer ? { viewer } : {}) };
}
