import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '@estate/platform';
import { claimSlot, orphanedSlots, pendingLines, releaseSlot, segmentName, segmentsOf, writePosition, type SlotPosition } from './spool.slot';

export interface SpoolOptions {
  /** Every edge on this host may share it: one folder per calls topic, one slot per edge process. */
  dir: string;
  /** Unsent bytes past which the edge refuses new calls (see CallRecorder.accepting). */
  maxBytes: number;
  /** How often written lines are fdatasync'ed; 0: before every answer. */
  syncMs: number;
  /** A segment is closed and a new one begun past this size; drained segments are deleted. */
  segmentBytes?: number;
}

/** Where a spooled line ends: acknowledging it moves the drained position there. */
export interface SpooledLine {
  segment: number;
  end: number;
  bytes: number;
}

const DEFAULT_SEGMENT_BYTES = 16 * 1024 * 1024;
/**
 * How long a moved drained position may wait before it is written. Write-and-rename after every
 * acknowledged batch cost more CPU than the records themselves, and at 100 ms it was still 1 % of
 * the edge's busy time under call load (a rename over the old file makes the filesystem write the
 * new one out); a crash inside this window sends those acknowledged records again, which audit
 * ignores.
 */
const POSITION_MS = 500;

/**
 * The edge's append-only file of call records not yet acknowledged by the bus. A record is
 * written (one `write`, ~2 µs) before its call is answered, so it is in the kernel's page cache:
 * the edge process may die at any point after that and the record survives. The page cache
 * reaches the disk with an fdatasync every `syncMs` (group commit); only a machine crash or power
 * cut inside that window can lose the records written in it, which is the accepted contract (an
 * fdatasync per call costs ~0.4 ms of wall time on this disk, set `syncMs` 0 to pay it).
 * The drained position moves only after the bus acknowledged a batch, and reaches its file within
 * POSITION_MS; a crash before that sends those records again, which audit ignores (records keep
 * the event id given when accepted).
 */
export class CallSpool {
  private slot?: string;
  private fd = -1;
  private segment = 0;
  private offset = 0;
  private unsent = 0;
  private dirty = false;
  private syncTimer?: NodeJS.Timeout;
  /** The drained position not yet written, and the timer that writes it. */
  private drained?: SlotPosition;
  private positionTimer?: NodeJS.Timeout;
  /** No segment below this one is left in the slot. */
  private oldestSegment = 0;

  constructor(private readonly options: SpoolOptions, private readonly topic: string, private readonly logger: Logger) {}

  get opened(): boolean {
    return this.slot !== undefined;
  }

  /** Bytes written and not yet acknowledged by the bus. */
  get unsentBytes(): number {
    return this.unsent;
  }

  get full(): boolean {
    return this.unsent >= this.options.maxBytes;
  }

  /**
   * Claims a slot of this process and takes over every slot no living edge holds (left by a crash
   * or by a shutdown while the bus was down): their unsent lines are written into this slot and
   * synced before the old slot is deleted. Returns every line to send, in order, with its place.
   */
  open(): Array<{ text: string; line: SpooledLine }> {
    const root = path.join(this.options.dir, this.topic.replace(/[^A-Za-z0-9._-]/g, '_'));
    fs.mkdirSync(root, { recursive: true });
    const orphans = orphanedSlots(root);
    this.slot = claimSlot(root, `${process.pid}-${randomUUID().slice(0, 8)}`);
    this.openSegment(0);
    const adopted: Array<{ text: string; line: SpooledLine }> = [];
    for (const orphan of orphans) {
      const { lines, torn } = pendingLines(orphan);
      if (torn > 0) this.logger.warn({ slot: orphan, torn }, 'a spooled call record was cut short by a machine crash and is lost');
      for (const text of lines) adopted.push({ text, line: this.write(text) });
      fs.fdatasyncSync(this.fd);
      fs.rmSync(orphan, { recursive: true, force: true });
      if (lines.length > 0) this.logger.info({ slot: orphan, records: lines.length }, 'took over unsent call records left by an edge that stopped');
    }
    return adopted;
  }

  /** Writes a record before its call is answered. Never refuses: the edge stops taking calls when `full`. */
  append(text: string): SpooledLine {
    const line = this.write(text);
    if (this.options.syncMs === 0) fs.fdatasyncSync(this.fd);
    else {
      this.dirty = true;
      this.syncTimer ??= setTimeout(() => this.sync(), this.options.syncMs).unref();
    }
    return line;
  }

  /**
   * The bus holds everything up to and including `last`: the position moves (on disk within
   * POSITION_MS, at once when whole segments are drained, which then go).
   */
  acknowledge(last: SpooledLine, bytes: number): void {
    if (!this.slot) return;
    this.unsent = Math.max(0, this.unsent - bytes);
    this.drained = { segment: last.segment, offset: last.end };
    if (last.segment > this.oldestSegment) return this.savePosition();
    this.positionTimer ??= setTimeout(() => this.savePosition(), POSITION_MS).unref();
  }

  private savePosition(): void {
    clearTimeout(this.positionTimer);
    this.positionTimer = undefined;
    const drained = this.drained;
    if (!this.slot || !drained) return;
    this.drained = undefined;
    writePosition(this.slot, drained);
    if (drained.segment <= this.oldestSegment) return;
    for (const segment of segmentsOf(this.slot)) {
      if (segment < drained.segment) fs.rmSync(path.join(this.slot, segmentName(segment)), { force: true });
    }
    this.oldestSegment = drained.segment;
  }

  close(): void {
    if (!this.slot) return;
    this.savePosition();
    clearTimeout(this.syncTimer);
    this.syncTimer = undefined;
    fs.fdatasyncSync(this.fd);
    fs.closeSync(this.fd);
    // The number may be given to another file now: nothing is written through it again.
    this.fd = -1;
    releaseSlot(this.slot, this.unsent === 0);
    this.slot = undefined;
  }

  private write(text: string): SpooledLine {
    if (this.fd < 0) throw new Error('the call spool is closed');
    // A string is encoded straight into the write: no Buffer of its own per record.
    const bytes = fs.writeSync(this.fd, `${text}\n`);
    this.offset += bytes;
    this.unsent += bytes;
    const line = { segment: this.segment, end: this.offset, bytes };
    if (this.offset >= (this.options.segmentBytes ?? DEFAULT_SEGMENT_BYTES)) {
      fs.fdatasyncSync(this.fd);
      fs.closeSync(this.fd);
      this.openSegment(this.segment + 1);
    }
    return line;
  }

  private openSegment(segment: number): void {
    this.segment = segment;
    this.offset = 0;
    this.fd = fs.openSync(path.join(this.slot!, segmentName(segment)), 'a');
  }

  private sync(): void {
    this.syncTimer = undefined;
    if (!this.dirty || this.fd < 0) return;
    this.dirty = false;
    const fd = this.fd;
    fs.fdatasync(fd, (error) => {
      // A segment closed meanwhile was synced when it closed.
      if (error && (error as NodeJS.ErrnoException).code !== 'EBADF') this.logger.error({ err: error }, 'could not sync the call spool to disk');
    });
  }
}
