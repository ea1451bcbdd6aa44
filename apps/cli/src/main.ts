#!/usr/bin/env node
import type * as Cli from './cli.run';

// `estate stdio` must own stdout from the first line, so nothing is loaded before we know which
// command runs: the stdio edge installs its stdout guard before anything else can print.
/* eslint-disable @typescript-eslint/no-require-imports */
if (process.argv[2] === 'stdio') {
  require('../../mcp-edge/src/stdio/main');
} else {
  void (require('./cli.run') as typeof Cli).run();
}
