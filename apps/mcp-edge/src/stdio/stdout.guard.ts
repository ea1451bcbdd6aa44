import { Console } from 'node:console';

/**
 * In stdio mode stdout carries MCP messages and nothing else: one stray debug print and the
 * client's parser fails. Imported first by stdio/main.ts, so that every console method that
 * would write to stdout writes to stderr instead, for our code and for every dependency.
 */
const stderrOnly = new Console({ stdout: process.stderr, stderr: process.stderr });
Object.assign(console, {
  log: stderrOnly.log.bind(stderrOnly),
  info: stderrOnly.info.bind(stderrOnly),
  debug: stderrOnly.debug.bind(stderrOnly),
  dir: stderrOnly.dir.bind(stderrOnly),
  dirxml: stderrOnly.dirxml.bind(stderrOnly),
  table: stderrOnly.table.bind(stderrOnly),
  group: stderrOnly.group.bind(stderrOnly),
  groupCollapsed: stderrOnly.groupCollapsed.bind(stderrOnly),
  groupEnd: stderrOnly.groupEnd.bind(stderrOnly),
  count: stderrOnly.count.bind(stderrOnly),
  timeEnd: stderrOnly.timeEnd.bind(stderrOnly),
  timeLog: stderrOnly.timeLog.bind(stderrOnly),
});
