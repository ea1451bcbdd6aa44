import os from 'node:os';
import { toMarkdown, type BenchTable } from './contracts.bench';
import { profileMarkdown, type ProfileSummary } from './cpu-profile.summary';

export interface Verdict {
  figure: string;
  target: string;
  measured: string;
  baseline: string;
  met: boolean;
  /** How far off a missed target is, e.g. "2.4× the target". */
  miss?: string;
}

/** Compares `value` against an upper (`max`) or lower (`min`) bound and says by how much it misses. */
export function verdict(figure: string, value: number, bound: { max?: number; min?: number }, unit: string, baseline: string): Verdict {
  const fmt = (n: number) => `${Number(n.toFixed(3))}${unit}`;
  const target = bound.max !== undefined ? `≤ ${fmt(bound.max)}` : `≥ ${fmt(bound.min ?? 0)}`;
  const met = bound.max !== undefined ? value <= bound.max : value >= (bound.min ?? 0);
  let miss: string | undefined;
  if (!met && bound.max !== undefined) miss = `over by ${fmt(value - bound.max)}${bound.max === 0 ? '' : ` (${(value / bound.max).toFixed(2)}× the target)`}`;
  if (!met && bound.min !== undefined) miss = `short by ${fmt(bound.min - value)} (${(value / bound.min).toFixed(2)}× the target)`;
  return { figure, target, measured: fmt(value), baseline, met, miss };
}

export function machineLines(command: string, kafka: string, loadAtStart: number[]): string[] {
  const cpus = os.cpus();
  const load = (l: number[]) => l.map((v) => v.toFixed(2)).join(' / ');
  return [
    `- date: ${new Date().toISOString()}`,
    `- cpu: ${cpus[0]?.model ?? 'unknown'} × ${cpus.length} logical cores`,
    `- memory: ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    `- node: ${process.version} (${process.platform} ${process.arch}), kernel ${os.release()}`,
    `- load average (1/5/15 min) at start: ${load(loadAtStart)}, at end: ${load(os.loadavg())} — the machine is shared; ` +
      'a load above the core count means every subject, baseline included, got a fraction of a core',
    `- kafka: ${kafka}`,
    `- command: \`${command}\``,
  ];
}

function verdictTable(verdicts: Verdict[]): string {
  const lines = ['| figure | target | measured | baseline (same run) | verdict |', '| --- | --- | --- | --- | --- |'];
  for (const v of verdicts) lines.push(`| ${v.figure} | ${v.target} | ${v.measured} | ${v.baseline} | ${v.met ? 'met' : `**missed**: ${v.miss}`} |`);
  return lines.join('\n');
}

export interface Report {
  machine: string[];
  verdicts: Verdict[];
  method: string[];
  tables: BenchTable[];
  profiles: Array<{ title: string; summary: ProfileSummary }>;
  seconds: number;
}

export function renderReport(report: Report): string {
  return [
    '# Estate benchmarks',
    '',
    'Written by `npm run bench` (bench/run.ts) from one run; do not edit by hand. Every figure sits',
    'beside a baseline measured in the same run on the same machine, so read the ratios first.',
    '',
    '## Machine and command',
    '',
    ...report.machine,
    `- whole run: ${report.seconds.toFixed(0)} s`,
    '',
    '## Targets',
    '',
    verdictTable(report.verdicts),
    '',
    '## How it was measured',
    '',
    ...report.method.map((m) => `- ${m}`),
    '',
    '## Results',
    '',
    toMarkdown(report.tables),
    '',
    '## CPU profiles of the edge (node --cpu-prof, separate runs under 32-way load)',
    '',
    'Self time only (samples in the frame itself, not in what it calls), counted per sample so time the',
    'process spent preempted by other load is not charged to a frame. "Busy" excludes idle.',
    '',
    report.profiles.map((p) => profileMarkdown(p.title, p.summary)).join('\n\n'),
    '',
  ].join('\n');
}
