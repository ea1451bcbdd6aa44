import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time (user + system) of processes, read from /proc/<pid>/stat. On a shared machine the
 * wall-clock rate moves with everyone else's load; CPU seconds per operation barely do, so the
 * benches report both.
 */
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

interface Stat { pid: number; ppid: number; ticks: number }

function readStat(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name sits in parentheses and may contain spaces: fields follow the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { pid, ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined; // exited between listing and reading
  }
}

function allStats(): Stat[] {
  const stats: Stat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat) stats.push(stat);
  }
  return stats;
}

/** Ticks per pid of `roots` and all their descendants (PostgreSQL's backends are the postmaster's children). */
function treeTicks(roots: number[]): Map<number, number> {
  const stats = allStats();
  const children = new Map<number, Stat[]>();
  for (const s of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  const out = new Map<number, number>();
  const visit = (s: Stat) => {
    out.set(s.pid, s.ticks);
    for (const c of children.get(s.pid) ?? []) visit(c);
  };
  for (const root of roots) {
    const s = stats.find((x) => x.pid === root);
    if (s) visit(s);
  }
  return out;
}

/** The pid of the postmaster serving `dataDir` (first line of postmaster.pid). */
export function postmasterPid(dataDir: string): number {
  return Number(readFileSync(`${dataDir}/postmaster.pid`, 'utf8').split('\n')[0]);
}

/** Pids whose command line contains `needle`, e.g. the shared Kafka broker's main class. */
export function pidsMatching(needle: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(needle)) pids.push(Number(name));
    } catch {
      // gone
    }
  }
  return pids;
}

export interface CpuSpan {
  /** CPU seconds since start of each named group; processes that exited during the span are not counted. */
  stop(): Record<string, number>;
}

/**
 * Starts counting CPU for named groups of process trees; `self` counts this process via
 * process.cpuUsage (threads included). A process started during the span counts from zero.
 */
export function startCpuSpan(groups: Record<string, number[] | 'self'>): CpuSpan {
  const before = new Map<string, Map<number, number>>();
  const selfBefore = process.cpuUsage();
  for (const [name, roots] of Object.entries(groups)) if (roots !== 'self') before.set(name, treeTicks(roots));
  return {
    stop: () => {
      const out: Record<string, number> = {};
      for (const [name, roots] of Object.entries(groups)) {
        if (roots === 'self') {
          const used = process.cpuUsage(selfBefore);
          out[name] = (used.user + used.system) / 1e6;
          continue;
        }
        const start = before.get(name) ?? new Map<number, number>();
        let ticks = 0;
        for (const [pid, now] of treeTicks(roots)) ticks += now - (start.get(pid) ?? 0);
        out[name] = ticks / TICKS_PER_SECOND;
      }
      return out;
    },
  };
}
