import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

/**
 * Logs go to stderr, always: stdout belongs to the stdio MCP transport. Secrets are redacted by
 * key wherever they appear in a log object.
 */
export function createLogger(name: string, level = 'info'): Logger {
  return pino(
    {
      name,
      level,
      redact: {
        paths: ['authorization', '*.authorization', 'headers.authorization', 'token', '*.token', 'password', '*.password', 'secret', '*.secret'],
        censor: '[redacted]',
      },
    },
    pino.destination({ fd: 2, sync: false }),
  );
}
