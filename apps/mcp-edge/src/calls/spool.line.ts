import type { OutgoingMessage } from '@estate/platform';

/**
 * One call record as a spool line: the message's key and headers, and its value (the envelope,
 * already JSON) spliced in as it is. Writing the message with JSON.stringify encoded the envelope
 * a second time, as an escaped string, for every call; a line is read back only after a crash.
 */
export function spoolLine(message: OutgoingMessage): string {
  const headers = message.headers === undefined ? '' : `,"headers":${JSON.stringify(message.headers)}`;
  return `{"key":${JSON.stringify(message.key)}${headers},"envelope":${message.value ?? 'null'}}`;
}

interface Line {
  key?: unknown;
  headers?: Record<string, string>;
  value?: unknown;
  envelope?: unknown;
}

/**
 * The message a spool line holds. Lines written before the envelope was spliced in carry it as a
 * string in `value`, and are read alike. Throws when the line is not JSON or has no key.
 */
export function messageOfLine(text: string): OutgoingMessage {
  const line = JSON.parse(text) as Line;
  if (typeof line.key !== 'string') throw new SyntaxError('a spooled call record has no key');
  const value = 'envelope' in line ? (line.envelope === null ? null : JSON.stringify(line.envelope)) : typeof line.value === 'string' ? line.value : null;
  return line.headers === undefined ? { key: line.key, value } : { key: line.key, value, headers: line.headers };
}
