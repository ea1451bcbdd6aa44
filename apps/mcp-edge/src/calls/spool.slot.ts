import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * A spool slot is one edge process's folder under `<spool dir>/<calls topic>/`: its segments,
 * its drained position and an `owner` file naming the process. A slot whose owner is gone (the
 * process died, or closed with records it could not send) is adopted by the next edge that
 * starts on the same directory and topic.
 */
export const OWNER_FILE = 'owner';
export const POSITION_FILE = 'drained';
const SEGMENT = /^(\d{10})\.spool$/;

/** Slots held by edges of this process: the same pid, so a pid check alone cannot tell them apart. */
const HELD = new Set<string>();

export function segmentName(segment: number): string {
  return `${String(segment).padStart(10, '0')}.spool`;
}

export function claimSlot(root: string, name: string): string {
  const slot = path.join(root, name);
  fs.mkdirSync(slot, { recursive: true });
  fs.writeFileSync(path.join(slot, OWNER_FILE), String(process.pid));
  HELD.add(slot);
  return slot;
}

export function releaseSlot(slot: string, empty: boolean): void {
  HELD.delete(slot);
  // An empty slot goes; one still holding records loses its owner, so the next edge adopts it.
  if (!empty) return fs.rmSync(path.join(slot, OWNER_FILE), { force: true });
  fs.rmSync(slot, { recursive: true, force: true });
  // The topic's folder goes with its last slot (tests leave one per random topic prefix otherwise).
  try {
    fs.rmdirSync(path.dirname(slot));
  } catch {
    // Another edge's slot is still there.
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Slots under `root` that no living edge holds. */
export function orphanedSlots(root: string): string[] {
  const slots = fs.readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => path.join(root, d.name));
  return slots.filter((slot) => {
    if (HELD.has(slot)) return false;
    let pid = NaN;
    try {
      pid = Number(fs.readFileSync(path.join(slot, OWNER_FILE), 'utf8'));
    } catch {
      return true;
    }
    return !Number.isInteger(pid) || pid === process.pid || !alive(pid);
  });
}

export interface SlotPosition {
  segment: number;
  offset: number;
}

export function readPosition(slot: string): SlotPosition {
  try {
    const position = JSON.parse(fs.readFileSync(path.join(slot, POSITION_FILE), 'utf8')) as SlotPosition;
    if (Number.isInteger(position.segment) && Number.isInteger(position.offset)) return position;
  } catch {
    // No position yet: nothing was acknowledged.
  }
  return { segment: 0, offset: 0 };
}

/** Write-and-rename: a crash leaves the old position or the new one, never half of one. */
export function writePosition(slot: string, position: SlotPosition): void {
  const file = path.join(slot, POSITION_FILE);
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(position));
  fs.renameSync(`${file}.tmp`, file);
}

export function segmentsOf(slot: string): number[] {
  return fs.readdirSync(slot).flatMap((f) => {
    const match = SEGMENT.exec(f);
    return match ? [Number(match[1])] : [];
  }).sort((a, b) => a - b);
}

/**
 * The lines a slot holds past its drained position. A last line without its newline is a write
 * the machine lost half of (power cut inside the sync window): it is counted in `torn`, not sent.
 */
export function pendingLines(slot: string): { lines: string[]; torn: number } {
  const position = readPosition(slot);
  const lines: string[] = [];
  let torn = 0;
  for (const segment of segmentsOf(slot)) {
    if (segment < position.segment) continue;
    const text = fs.readFileSync(path.join(slot, segmentName(segment))).subarray(segment === position.segment ? position.offset : 0).toString('utf8');
    const parts = text.split('\n');
    const last = parts.pop();
    if (last) torn += 1;
    lines.push(...parts.filter((p) => p.length > 0));
  }
  return { lines, torn };
}
