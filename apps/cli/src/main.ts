#!/usr/bin/env node
import type * as Cli from './cli.run';
import type * as StdioEdge from './stdio-edge.launcher';

// `estate stdio` must own stdout from the first line, so nothing is loaded before we know which
// command runs: the stdio edge runs as a child process that installs its stdout guard first.
/* eslint-disable @typescript-eslint/no-require-imports */
// `estate stdio --help` prints the usage like every other command (cli.run.ts), without starting an edge.
if (process.argv[2] === 'stdio' && !process.argv.slice(3).some((arg) => arg === '--help' || arg === '-h')) {
  (require('./stdio-edge.launcher') as typeof StdioEdge).runStdioEdge();
} else {
  void (require('./cli.run') as typeof Cli).run();
}
