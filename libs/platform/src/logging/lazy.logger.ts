import { bindLogIds, type Logger } from '../logger';
import type { LogIds } from './log.ids';

/** What a handler needs of a logger: four levels, an object and a message. */
export interface LineLogger {
  error(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  info(object: object, message?: string): void;
  debug(object: object, message?: string): void;
}

type Level = keyof LineLogger;

/**
 * A per-request logger made only when a line is actually written. The edge handles thousands of
 * JSON-RPC requests a second and logs for few of them; a pino child costs a serialization of its
 * bindings, so a request that writes nothing (or only debug lines at level info) pays nothing.
 */
export class LazyLogger implements LineLogger {
  private child?: Logger;

  constructor(private readonly base: Logger, private readonly fields: () => LogIds & Record<string, unknown>) {}

  /** The bound child itself, made now; for code that wants a full pino logger. */
  get logger(): Logger {
    return (this.child ??= bindLogIds(this.base, this.fields()));
  }

  error(object: object, message?: string): void { this.write('error', object, message); }
  warn(object: object, message?: string): void { this.write('warn', object, message); }
  info(object: object, message?: string): void { this.write('info', object, message); }
  debug(object: object, message?: string): void { this.write('debug', object, message); }

  private write(level: Level, object: object, message: string | undefined): void {
    if (!this.base.isLevelEnabled(level)) return;
    this.logger[level](object, message);
  }
}
