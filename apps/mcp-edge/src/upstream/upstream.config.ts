import type { EnvReader } from '@estate/platform';
import { DEFAULT_READ_LIMITS } from './http-client.transport';
import type { UpstreamPoolOptions } from './upstream.pool';

/** What the edge does with upstream prompt or resource text that breaks the prompt-text rules. */
export const UPSTREAM_TEXT_ACTIONS = ['refuse', 'strip', 'flag'] as const;
export type UpstreamTextAction = (typeof UPSTREAM_TEXT_ACTIONS)[number];

export interface UpstreamConfig {
  pool: UpstreamPoolOptions;
  textAction: UpstreamTextAction;
}

/** Room for the JSON-RPC envelope around a result of ESTATE_MAX_RESULT_BYTES. */
const ENVELOPE_BYTES = 64 * 1024;

/**
 * ESTATE_MAX_UPSTREAM_MESSAGE_BYTES (the result limit plus 64 KiB), ESTATE_UPSTREAM_RELIST_SECONDS
 * (60), ESTATE_UPSTREAM_TEXT_ACTION (refuse).
 */
export function readUpstreamConfig(reader: EnvReader, maxResultBytes: number): UpstreamConfig {
  const message = Number(reader.string('ESTATE_MAX_UPSTREAM_MESSAGE_BYTES', String(maxResultBytes + ENVELOPE_BYTES)));
  const relistMs = reader.duration('ESTATE_UPSTREAM_RELIST_SECONDS', 60, { unit: 's' });
  if (!(message > 0) || !Number.isFinite(message)) reader.problems.push('ESTATE_MAX_UPSTREAM_MESSAGE_BYTES must be a positive number');
  return {
    pool: { read: { ...DEFAULT_READ_LIMITS, maxMessageBytes: message }, relistMs },
    textAction: reader.oneOf('ESTATE_UPSTREAM_TEXT_ACTION', UPSTREAM_TEXT_ACTIONS, 'refuse'),
  };
}
