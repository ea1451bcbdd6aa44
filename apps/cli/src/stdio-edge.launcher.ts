import { spawn } from 'node:child_process';
import { Console } from 'node:console';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import path from 'node:path';
import { isatty } from 'node:tty';

/**
 * `estate stdio` runs the edge's own stdio entry point as a child process instead of importing the
 * edge app: the CLI and the edge are separate apps that share code only through libs/. The child
 * inherits stdin, stdout and stderr, so the client's protocol messages reach the edge untouched and
 * the CLI writes nothing into them; its exit status becomes ours.
 */
const FORWARDED: NodeJS.Signals[] = ['SIGTERM', 'SIGHUP', 'SIGINT'];

/** Beside this file in dist/ (apps/cli/src → apps/mcp-edge/src/stdio), or the source when run through a TypeScript loader. */
export function stdioEdgeEntry(dir = __dirname): string {
  const base = path.resolve(dir, '..', '..', 'mcp-edge', 'src', 'stdio', 'main');
  return [`${base}.js`, `${base}.ts`].find((file) => existsSync(file)) ?? `${base}.js`;
}

export function runStdioEdge(entry = stdioEdgeEntry()): void {
  if (!existsSync(entry)) {
    process.stderr.write(`estate stdio: the edge's stdio entry point ${entry} is missing; build it with \`npm run build\`\n`);
    process.exitCode = 1;
    return;
  }
  // We share the client's stdout with the edge: anything printed on our side (a --require in
  // NODE_OPTIONS, say) must land on stderr, not in the protocol.
  Object.assign(console, new Console({ stdout: process.stderr, stderr: process.stderr }));
  // A client that spawned us through pipes gets a child in a process group of its own, so a Ctrl-C
  // aimed at the client's group reaches the edge once (through us), not twice: a second signal
  // makes the edge exit before its pending call records are published. On a terminal the child must
  // stay in the foreground group to read stdin, and the terminal delivers Ctrl-C to it directly.
  // isatty, not process.stdin: touching process.stdin would open a reader on the fd the child owns.
  const interactive = isatty(0);
  const child = spawn(process.execPath, [...process.execArgv, entry, ...process.argv.slice(3)], { stdio: 'inherit', detached: !interactive });
  for (const signal of FORWARDED) {
    process.on(signal, () => {
      if (!(interactive && signal === 'SIGINT')) child.kill(signal);
    });
  }
  child.on('error', (error) => {
    process.stderr.write(`estate stdio: could not start the edge: ${error.message}\n`);
    process.exitCode = 1;
  });
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 128 + constants.signals[signal] : 1);
    process.exit();
  });
}

