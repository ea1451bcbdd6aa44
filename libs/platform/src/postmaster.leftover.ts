import { readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import type { Logger } from 'pino';

/** Who runs the server on a data directory: written after start, removed after a clean stop. */
interface OwnerRecord {
  pid: number;
  /** The owner's start time from /proc (Linux), so a recycled pid is not taken for it. */
  since?: string;
  /** Set once the server runs. */
  postmaster?: number;
}

/** Beside the data directory, not in it: initdb wants an empty directory. */
const ownerFile = (dataDir: string) => `${dataDir}.owner.json`;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Field 22 of /proc/<pid>/stat; undefined where there is no /proc. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/**
 * A postmaster works in its data directory. When its cwd cannot be read (no /proc, another
 * user), a live pid counts as ours: taking a live server for a stale one would let two
 * postmasters share one data directory.
 */
function servesDataDir(pid: number, dataDir: string): boolean {
  if (!isAlive(pid)) return false;
  try {
    return realpathSync(readlinkSync(`/proc/${pid}/cwd`)) === realpathSync(dataDir);
  } catch {
    return true;
  }
}

function ownerAlive(owner: OwnerRecord): boolean {
  if (owner.pid === process.pid || !isAlive(owner.pid)) return false;
  const since = startTime(owner.pid);
  return owner.since === undefined || since === undefined || since === owner.since;
}

async function readOwner(dataDir: string): Promise<OwnerRecord | undefined> {
  try {
    return JSON.parse(await readFile(ownerFile(dataDir), 'utf8')) as OwnerRecord;
  } catch {
    return undefined;
  }
}

async function postmasterPid(dataDir: string): Promise<number | undefined> {
  try {
    const pid = Number((await readFile(`${dataDir}/postmaster.pid`, 'utf8')).split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function stopLeftover(pid: number): Promise<void> {
  for (const [signal, ms] of [['SIGINT', 10_000], ['SIGQUIT', 5000]] as const) {
    process.kill(pid, signal);
    for (const end = Date.now() + ms; Date.now() < end; ) {
      if (!isAlive(pid)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`the PostgreSQL server (pid ${pid}) left running on this data directory does not stop`);
}

const inUse = (dataDir: string, pid: number) =>
  new Error(`${dataDir} is in use by a running estate (pid ${pid}); stop it first, or set ESTATE_DATA_DIR to another directory`);

/**
 * Before starting a server on `dataDir`: refuse if a live estate owns it; otherwise claim the
 * directory (exclusively), and only then stop a server a dead estate left behind (its watchdog was
 * killed too) or drop a stale lock file, saying so in one line. Claiming first matters: a second
 * start racing this one finds the claim and refuses, instead of finding our freshly started server
 * and stopping it as a leftover.
 */
export async function claimDataDir(dataDir: string, logger: Logger): Promise<void> {
  const owner = await readOwner(dataDir);
  if (owner && ownerAlive(owner)) throw inUse(dataDir, owner.pid);
  if (owner) await removeClaimOf(dataDir, owner);
  try {
    await writeOwner(dataDir, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    throw inUse(dataDir, (await readOwner(dataDir))?.pid ?? 0);
  }
  const pid = await postmasterPid(dataDir);
  const previous = owner ? `a previous estate (pid ${owner.pid})` : 'an earlier run';
  if (pid !== undefined && servesDataDir(pid, dataDir)) {
    await stopLeftover(pid);
    logger.warn({ dataDir, postmaster: pid, owner: owner?.pid }, `recovered: stopped the PostgreSQL server (pid ${pid}) that ${previous} left running on ${dataDir}`);
  } else if (pid !== undefined) {
    await rm(`${dataDir}/postmaster.pid`, { force: true });
    logger.warn({ dataDir, postmaster: pid, owner: owner?.pid }, `recovered: removed the stale postmaster.pid of ${previous} (pid ${pid} is no longer PostgreSQL on ${dataDir})`);
  } else if (owner) {
    logger.warn({ dataDir, owner: owner.pid }, `recovered: ${previous} ended without a clean stop; its PostgreSQL server was already stopped`);
  }
}

/** Removes a dead estate's claim, unless another start replaced it since it was read (that one then holds the directory). */
async function removeClaimOf(dataDir: string, dead: OwnerRecord): Promise<void> {
  const current = await readOwner(dataDir);
  if (current && current.pid === dead.pid && current.since === dead.since) await rm(ownerFile(dataDir), { force: true });
}

/** Adds the server's pid to our claim, once it runs. */
export async function recordPostmaster(dataDir: string, postmaster: number): Promise<void> {
  await writeOwner(dataDir, 'w', postmaster);
}

export async function releaseDataDir(dataDir: string): Promise<void> {
  await rm(ownerFile(dataDir), { force: true });
}

async function writeOwner(dataDir: string, flag: 'w' | 'wx', postmaster?: number): Promise<void> {
  const record: OwnerRecord = { pid: process.pid, since: startTime(process.pid), postmaster };
  await writeFile(ownerFile(dataDir), `${JSON.stringify(record)}\n`, { mode: 0o600, flag });
}
