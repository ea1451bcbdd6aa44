import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface FrameCost {
  frame: string;
  selfMs: number;
  share: number;
}

export interface ProfileSummary {
  busyMs: number;
  idleMs: number;
  frames: FrameCost[];
  /** Self time grouped by where the code lives: a package, the estate's own code, node internals. */
  owners: FrameCost[];
  /** Busy and idle time of each profiled thread, in the order given. */
  threads?: Array<{ busyMs: number; idleMs: number }>;
}

/** node --cpu-prof samples every 1000 µs unless --cpu-prof-interval says otherwise. */
const SAMPLE_MS = 1;

function ownerOf(url: string): string {
  if (!url) return '(native / vm)';
  if (url.startsWith('node:')) {
    // node:internal/deps/undici/undici → "node: undici", node:internal/webstreams/… → "node: webstreams".
    const parts = url.slice('node:'.length).split('/');
    const area = parts[0] === 'internal' && parts.length > 2 ? (parts[1] === 'deps' ? parts[2] : parts[1]) : parts[parts.length - 1];
    return `node: ${area}`;
  }
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + 'node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const dist = /dist\/(apps\/[^/]+|libs\/[^/]+)/.exec(url);
  return dist ? `estate ${dist[1]}` : path.basename(url);
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url ? `${url.startsWith('node:') ? url : `${ownerOf(url)} ${path.basename(url)}`}:${lineNumber + 1}` : '';
  return `${functionName || '(anonymous)'} ${where}`.trim();
}

function top(costs: Map<string, number>, busyMs: number, limit: number): FrameCost[] {
  return [...costs.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([frame, selfMs]) => ({ frame, selfMs, share: selfMs / busyMs }));
}

/** Milliseconds since the profiled process started: only samples inside it count (leaves out boot and shutdown). */
export interface ProfileWindow {
  fromMs: number;
  toMs: number;
}

/**
 * Self time per frame of V8 .cpuprofiles (node --cpu-prof), idle time left out. Several files are
 * the threads of one process (npm start runs two): their samples add up, each placed on the first
 * (earliest) profile's clock, so one window cuts every thread at the same moments.
 */
export function summarizeProfile(files: string | string[], window: ProfileWindow = { fromMs: 0, toMs: Infinity }, limit = 15): ProfileSummary {
  const profiles = (Array.isArray(files) ? files : [files]).map((file) => JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
  const origin = Math.min(...profiles.map((p) => p.startTime));
  const frames = new Map<string, number>();
  const owners = new Map<string, number>();
  let busyMs = 0;
  let idleMs = 0;
  const threads: Array<{ busyMs: number; idleMs: number }> = [];
  for (const profile of profiles) {
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const thread = { busyMs: 0, idleMs: 0 };
    let atMs = (profile.startTime - origin) / 1000;
    profile.samples.forEach((id, i) => {
      const node = byId.get(id);
      atMs += (profile.timeDeltas[i] ?? 0) / 1000;
      if (atMs < window.fromMs || atMs > window.toMs) return;
      // Each sample counts one sampling interval: on a busy machine a preempted thread shows a long
      // gap before its next sample, and charging that gap to the frame (often a syscall) would lie.
      const ms = SAMPLE_MS;
      if (!node || node.callFrame.functionName === '(idle)') {
        thread.idleMs += ms;
        return;
      }
      thread.busyMs += ms;
      const name = frameName(node);
      frames.set(name, (frames.get(name) ?? 0) + ms);
      const owner = node.callFrame.url ? ownerOf(node.callFrame.url) : node.callFrame.functionName || '(native, unnamed)';
      owners.set(owner, (owners.get(owner) ?? 0) + ms);
    });
    busyMs += thread.busyMs;
    idleMs += thread.idleMs;
    threads.push(thread);
  }
  return { busyMs, idleMs, threads, frames: top(frames, busyMs, limit), owners: top(owners, busyMs, 10) };
}

/** The one profile node writes into `dir` when the process exits (its main thread's, when it ran several). */
export function profileIn(dir: string): string {
  const [file] = profilesIn(dir);
  if (!file) throw new Error(`no .cpuprofile in ${dir}`);
  return file;
}

/** Every thread's profile in `dir`, in the order node numbered them (the main thread first). */
export function profilesIn(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort().map((f) => path.join(dir, f));
}

export function profileMarkdown(title: string, summary: ProfileSummary): string {
  const pct = (share: number) => `${(share * 100).toFixed(1)} %`;
  const lines = [
    `#### ${title}`,
    '',
    `${summary.busyMs.toFixed(0)} busy samples, ${summary.idleMs.toFixed(0)} idle (1 sample = 1 ms of sampling interval)${threadsLine(summary)}.`,
    '',
    '| self time by owner | samples | share of busy |',
    '| --- | --- | --- |',
    ...summary.owners.map((o) => `| ${o.frame} | ${o.selfMs.toFixed(0)} | ${pct(o.share)} |`),
    '',
    '| top self-time frames | samples | share of busy |',
    '| --- | --- | --- |',
    ...summary.frames.map((f) => `| \`${f.frame.replace(/\|/g, '\\|')}\` | ${f.selfMs.toFixed(0)} | ${pct(f.share)} |`),
  ];
  return lines.join('\n');
}

function threadsLine(summary: ProfileSummary): string {
  if (!summary.threads || summary.threads.length < 2) return '';
  return `; by thread, busy: ${summary.threads.map((t, i) => `${i === 0 ? 'main' : `thread ${i}`} ${t.busyMs.toFixed(0)} (${((t.busyMs / Math.max(1, t.busyMs + t.idleMs)) * 100).toFixed(0)} % of its time)`).join(', ')}`;
}
