import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { toMarkdown } from './contracts.bench';
import { publishTable, type PublishFigures } from './publish.bench';

/** The section bench/publish.run.ts owns in BENCHMARKS.md: from this heading to the next `## `. */
export const PUBLISH_SECTION = '## Publish throughput and CPU per publish (`npm run bench:publish`; rewritten by that command only)';

/** The section's text: how it was measured, the load it ran under, the table. */
export function publishSection(figures: PublishFigures[], loadAtStart: number[], command: string): string {
  const load = (l: number[]) => l.map((v) => v.toFixed(2)).join(' / ');
  return [
    PUBLISH_SECTION,
    '',
    `- ${new Date().toISOString()}, \`${command}\`, ${os.cpus().length} logical cores; load average (1/5/15 min) at start ${load(loadAtStart)}, at end ${load(os.loadavg())}.`,
    '- The machine is shared: publishes/s and latencies move with the load; CPU ms per publish (user + system time from /proc/<pid>/stat',
    '  over the measured window, divided by the publishes answered 201 in it) barely does and is the figure to compare.',
    '- Processes: the estate\'s node process (registry, relay, discovery, audit and edge in one), its embedded PostgreSQL\'s backends',
    '  (every client connection: registry appends, relay reads, discovery and audit writes, the in-process bus) and background',
    '  processes (WAL writer, checkpointer), and the Kafka broker when it runs on this machine (shared with other runs: an upper bound).',
    '- "estate idle CPU": the estate\'s processes with nothing published for 3 s before the runs (relay and consumer polls, timers);',
    '  at one client each publish carries that share, at 64 the per-batch costs (relay pass, group commit, consumer batch) are shared.',
    '- Target (issue 15): ≥ 1,000 publishes/s at 16 clients with p99 ≤ 50 ms; 2 cores at 1,000/s leave ≤ 2 ms of CPU per publish for everything.',
    '',
    toMarkdown([publishTable(figures)]),
    '',
  ].join('\n');
}

/** Puts the section into `file`: in place of its previous text, or before the first hand-added `## ` section after Results. */
export function writePublishSection(file: string, section: string): void {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '# Estate benchmarks\n';
  const start = text.indexOf(PUBLISH_SECTION);
  if (start >= 0) {
    const next = text.indexOf('\n## ', start + PUBLISH_SECTION.length);
    writeFileSync(file, text.slice(0, start) + section + (next >= 0 ? text.slice(next + 1) : ''));
    return;
  }
  const anchor = text.indexOf('\n## The change feed');
  writeFileSync(file, anchor >= 0 ? `${text.slice(0, anchor + 1)}${section}\n${text.slice(anchor + 1)}` : `${text.trimEnd()}\n\n${section}`);
}
