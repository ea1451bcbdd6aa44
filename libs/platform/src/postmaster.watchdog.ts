import { spawn } from 'node:child_process';
import type { Logger } from 'pino';

export interface PostmasterWatchdog {
  /** A clean stop: the watchdog exits without touching the server. */
  disarm(): void;
}

/**
 * $1: the postmaster's pid, $2: its data directory. Our end of stdin closes when the estate
 * process dies, however it dies (SIGKILL included), and `read` then sees end of file. The pid is
 * checked against postmaster.pid first (given a moment to appear if we died while the server was
 * starting), so a recycled pid is never signalled. SIGINT is PostgreSQL's fast shutdown, done
 * when it removes postmaster.pid; SIGQUIT (immediate) if it is still up 10 s later.
 */
const SCRIPT = `
while read -r line; do [ "$line" = disarm ] && exit 0; done
i=0
while [ ! -f "$2/postmaster.pid" ] && kill -0 "$1" 2>/dev/null && [ "$i" -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(head -n 1 "$2/postmaster.pid" 2>/dev/null)" = "$1" ] || exit 0
kill -INT "$1" 2>/dev/null || exit 0
i=0
while [ -f "$2/postmaster.pid" ] && kill -0 "$1" 2>/dev/null && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -f "$2/postmaster.pid" ] && kill -QUIT "$1" 2>/dev/null
exit 0
`;

/** The process name the watchdog shows in `ps`. */
export const WATCHDOG_NAME = 'estate-postgres-watchdog';

/**
 * A tiny detached shell that stops the postmaster when this process dies without stopping it.
 * It runs in its own session: a Ctrl-C to our process group does not reach it, and it outlives
 * us by design. It costs one `sh` blocked in `read`.
 */
export function watchPostmaster(pid: number, dataDir: string, logger: Logger): PostmasterWatchdog {
  const child = spawn('/bin/sh', ['-c', SCRIPT, WATCHDOG_NAME, String(pid), dataDir], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
    cwd: '/',
  });
  child.once('error', (error) => logger.warn({ err: error }, 'no PostgreSQL watchdog: a crash of this process would leave the server running'));
  // Neither the child nor its pipe may keep our event loop alive.
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  child.stdin?.on('error', () => undefined);
  return {
    disarm: () => {
      if (child.stdin?.writable) child.stdin.end('disarm\n');
    },
  };
}
