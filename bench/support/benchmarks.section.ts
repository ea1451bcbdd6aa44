import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const FILE = path.join(__dirname, '..', '..', 'BENCHMARKS.md');
const OWNED = 'Written by the bench itself; rerun the command below to replace it.';

/** Machine, load and command lines for a section, in the shape bench/report.writer.ts uses. */
export function sectionHeader(command: string, loadAtStart: number[]): string[] {
  const cpus = os.cpus();
  const load = (l: number[]) => l.map((v) => v.toFixed(2)).join(' / ');
  return [
    `- date: ${new Date().toISOString()}; cpu: ${cpus[0]?.model ?? 'unknown'} × ${cpus.length} logical cores; node ${process.version}`,
    `- load average (1/5/15 min) at start: ${load(loadAtStart)}, at end: ${load(os.loadavg())} (shared machine: above ${cpus.length}, every process got a fraction of a core)`,
    `- command: \`${command}\``,
  ];
}

/**
 * Writes `## <title>` into BENCHMARKS.md, replacing the section of that title (up to the next
 * `## ` heading) or appending it: each bench owns its section and rewrites only that.
 */
export function writeBenchSection(title: string, body: string[]): void {
  const heading = `## ${title}`;
  const text = existsSync(FILE) ? readFileSync(FILE, 'utf8') : '# Estate benchmarks\n';
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l === heading);
  const section = [heading, '', OWNED, '', ...body, ''];
  if (start < 0) {
    writeFileSync(FILE, `${text.replace(/\n*$/, '\n\n')}${section.join('\n')}`);
    return;
  }
  let end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  if (end < 0) end = lines.length;
  writeFileSync(FILE, [...lines.slice(0, start), ...section, ...lines.slice(end)].join('\n').replace(/\n*$/, '\n'));
}

/**
 * The sections other commands own, for `npm run bench` to keep when it rewrites the file: those
 * marked as written by a bench, those whose heading says another command rewrites them (or that
 * they were added by hand), and blocks between `<!-- … begin … -->` / `<!-- … end -->` markers.
 */
export function benchOwnedSections(): string {
  if (!existsSync(FILE)) return '';
  const lines = readFileSync(FILE, 'utf8').split('\n');
  const kept: string[] = [];
  const owned = (i: number) => lines[i + 2] === OWNED || /rewritten by|added by hand/.test(lines[i]) || /^<!-- .* begin/.test(lines[i - 1] ?? '');
  for (let i = 0; i < lines.length; i += 1) {
    if (!lines[i].startsWith('## ') || !owned(i)) continue;
    let end = lines.findIndex((l, j) => j > i && (l.startsWith('## ') || /^<!-- .* begin/.test(l)));
    if (end < 0) end = lines.length;
    const begin = /^<!-- .* begin/.test(lines[i - 1] ?? '') ? i - 1 : i;
    kept.push(...lines.slice(begin, end), '');
  }
  return kept.length > 0 ? `\n${kept.join('\n').replace(/\n*$/, '\n')}` : '';
}
