import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';

/** MCP's logging levels (RFC 5424), least severe first. */
const SEVERITY: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

export function severity(level: LoggingLevel): number {
  return SEVERITY.indexOf(level);
}

/** Whether a client that asked for `wanted` (undefined: never asked) is sent a message at `level`. */
export function levelWanted(level: LoggingLevel, wanted: LoggingLevel | undefined): boolean {
  return wanted === undefined || severity(level) >= severity(wanted);
}
