import pino, { type DestinationStream, type Logger } from 'pino';
import type * as Pretty from 'pino-pretty';
import { currentCorrelationId } from './tracing/correlation';
import { activeTraceIds } from './tracing/tracing';
import type { LogIds } from './logging/log.ids';

export type { Logger } from 'pino';

/** `auto`: readable lines when stderr is a terminal, JSON (one object a line) otherwise. */
export type LogFormat = 'auto' | 'pretty' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['auto', 'pretty', 'json'];
/** The levels LOG_LEVEL may name: pino's own, and `silent`. */
export const LOG_LEVELS: readonly string[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface LoggerOptions {
  format?: LogFormat;
  /** Where lines go; stderr unless a test captures them. */
  destination?: DestinationStream;
  /** Whether that destination is a terminal (decides `auto`). */
  isTTY?: boolean;
}

/**
 * Logs go to stderr, always: stdout belongs to the stdio MCP transport. Secrets are redacted by
 * key wherever they appear in a log object. Every line of a request or an event carries its trace
 * id and correlation id: bound to the child logger its handler was given (bindLogIds), or, for a
 * line written through a plain logger while tracing is on, taken from the active trace context.
 */
/**
 * Linux writes up to this many bytes to a pipe in one piece. `npm start` logs from two threads to
 * the one stderr: each write holds whole lines and at most this much, so the two never interleave
 * inside a line a log shipper reads as JSON.
 */
const PIPE_BUF = 4096;

export function createLogger(name: string, level = 'info', options: LoggerOptions = {}): Logger {
  const isTTY = options.isTTY ?? process.stderr.isTTY === true;
  const format = options.format ?? 'auto';
  const readable = format === 'pretty' || (format === 'auto' && isTTY);
  return pino(
    {
      name,
      level,
      redact: {
        paths: ['authorization', '*.authorization', 'headers.authorization', 'token', '*.token', 'password', '*.password', 'secret', '*.secret'],
        censor: '[redacted]',
      },
      mixin: (_object, _level, logger) => ((logger as Marked)[BOUND] ? activeSpan() : requestFields()),
    },
    readable ? prettyStream(options.destination, isTTY) : (options.destination ?? pino.destination({ fd: 2, sync: false, maxWrite: PIPE_BUF })),
  );
}

/** Marks a child logger whose lines already carry their ids, so the mixin does not write them twice. */
const BOUND = Symbol('estate.log-ids');
type Marked = { [BOUND]?: true };

/** A child logger whose every line carries these ids (and whatever else is given: a session, an event id). */
export function bindLogIds(base: Logger, fields: LogIds & { [key: string]: unknown }): Logger {
  const child = base.child(fields);
  (child as Marked)[BOUND] = true;
  return child;
}

/** Only the active span's id: a bound line has its trace id already, and the span changes within a request. */
function activeSpan(): Record<string, string> {
  const ids = activeTraceIds();
  return ids ? { spanId: ids.spanId } : {};
}

function requestFields(): Record<string, string> {
  const ids = activeTraceIds();
  const correlationId = currentCorrelationId();
  return { ...ids, ...(correlationId ? { correlationId } : {}) };
}

/** Synchronous, so a line is on the terminal before the process exits or a test reads it. */
function prettyStream(destination: DestinationStream | undefined, colorize: boolean): DestinationStream {
  // Loaded only for a terminal: it adds tens of milliseconds to every start, the CLI's included.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pretty = require('pino-pretty') as typeof Pretty.default;
  return pretty({
    destination: destination ?? 2,
    sync: true,
    colorize,
    translateTime: 'HH:MM:ss.l',
    ignore: 'pid,hostname',
  });
}
