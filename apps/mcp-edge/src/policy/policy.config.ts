import type { EnvReader } from '@estate/platform';
import { DEFAULT_POLICY_LIMITS, type PolicyLimits } from './call.policy';

/** The tool-call settings of the edge: policy limits. */
export interface EdgeToolConfig {
  policy: PolicyLimits;
}

function positive(reader: EnvReader, name: string, fallback: number): number {
  const value = Number(reader.string(name, String(fallback)));
  if (!(value > 0) || !Number.isFinite(value)) reader.problems.push(`${name} must be a positive number`);
  return value;
}

/**
 * ESTATE_RATE_PER_PRINCIPAL (600/min), ESTATE_RATE_PER_TOOL (6000/min), ESTATE_MAX_ARGUMENT_BYTES
 * (256 KiB), ESTATE_MAX_RESULT_BYTES (4 MiB), ESTATE_CONFIRM_TTL_SECONDS (300).
 */
export function readEdgeToolConfig(reader: EnvReader): EdgeToolConfig {
  const d = DEFAULT_POLICY_LIMITS;
  return {
    policy: {
      ratePerPrincipal: positive(reader, 'ESTATE_RATE_PER_PRINCIPAL', d.ratePerPrincipal),
      ratePerTool: positive(reader, 'ESTATE_RATE_PER_TOOL', d.ratePerTool),
      maxArgumentBytes: positive(reader, 'ESTATE_MAX_ARGUMENT_BYTES', d.maxArgumentBytes),
      maxResultBytes: positive(reader, 'ESTATE_MAX_RESULT_BYTES', d.maxResultBytes),
      confirmationTtlMs: reader.duration('ESTATE_CONFIRM_TTL_SECONDS', d.confirmationTtlMs / 1000, { unit: 's' }),
    },
  };
}
