import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** USER_HZ: Linux reports process CPU time in ticks of 1/100 s on every mainstream architecture. */
const CLOCK_TICKS = 100;

/** Where a process sits on the publish path; the estate's node process hosts registry, relay, discovery, audit and edge. */
export type CpuRole = 'estate node' | 'postgres backends' | 'postgres background' | 'kafka broker';

/** CPU time (user + system, ms) each process had used at one instant, with its role. */
export type CpuSnapshot = Map<number, { role: CpuRole; ms: number }>;

interface ProcStat {
  ppid: number;
  ms: number;
}

function stat(pid: number): ProcStat | undefined {
  try {
    // Fields after the command name (which may contain spaces): ppid is the 2nd, utime and stime the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return { ppid: Number(fields[1]), ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS };
  } catch {
    return undefined; // exited between the listing and the read
  }
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** A postgres backend serves a client ("postgres: user db 127.0.0.1(port) …"); the rest are postmaster, WAL writer, checkpointer. */
function roleOf(pid: number, root: number): CpuRole {
  if (pid === root) return 'estate node';
  return /\(\d+\)|\[local\]/.test(cmdline(pid)) ? 'postgres backends' : 'postgres background';
}

/** The process listening on `port` (from /proc/net/tcp*, then whose fd holds that socket); undefined when not visible. */
export function listenerPid(port: number): number | undefined {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // st 0A is LISTEN.
      if (cols[1]?.endsWith(`:${hex}`) && cols[3] === '0A') inodes.add(cols[9]);
    }
  }
  if (inodes.size === 0) return undefined;
  for (const pid of pids()) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (target.startsWith('socket:[') && inodes.has(target.slice(8, -1))) return pid;
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined;
}

function pids(): number[] {
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
}

/** Every process under `root` (itself included: the estate and its embedded PostgreSQL), plus the broker when given. */
export function snapshot(root: number, broker?: number): CpuSnapshot {
  const stats = new Map<number, ProcStat>();
  for (const pid of pids()) {
    const s = stat(pid);
    if (s) stats.set(pid, s);
  }
  const inTree = new Set([root]);
  // Parents before children is not guaranteed by pid order: repeat until nothing joins.
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, s] of stats) {
      if (!inTree.has(pid) && inTree.has(s.ppid)) {
        inTree.add(pid);
        grew = true;
      }
    }
  }
  const taken: CpuSnapshot = new Map();
  for (const pid of inTree) {
    const s = stats.get(pid);
    if (s) taken.set(pid, { role: roleOf(pid, root), ms: s.ms });
  }
  const b = broker === undefined ? undefined : stats.get(broker);
  if (broker !== undefined && b) taken.set(broker, { role: 'kafka broker', ms: b.ms });
  return taken;
}

/** CPU ms spent by each role between two snapshots; a process born in between counts from zero. */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): Record<CpuRole, number> {
  const spent: Record<CpuRole, number> = { 'estate node': 0, 'postgres backends': 0, 'postgres background': 0, 'kafka broker': 0 };
  for (const [pid, now] of after) spent[now.role] += now.ms - (before.get(pid)?.ms ?? 0);
  return spent;
}
