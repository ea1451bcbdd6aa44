import * as http from 'node:http';
import type { BenchChild } from './support/child-process.launcher';
import { round } from './support/load.runner';
import { McpHttpSession } from './support/mcp-http.client';

export interface SessionMemory {
  sessions: number;
  /** Sessions that could not be opened (or their stream), out of those tried. */
  failed: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  perSessionKb: number;
}

const OPEN_CONCURRENCY = 16;

/**
 * Opens `count` sessions the way an SDK client does (initialize, initialized, then the standalone
 * GET stream it listens on) and reads the server process's RSS before and after. Streams stay open
 * while RSS is read, then are closed again.
 */
export async function measureSessionMemory(child: BenchChild, url: string, token: string | undefined, count: number, maxMs = 60_000): Promise<SessionMemory> {
  const streams = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const rssBeforeMb = child.rssMb();
  const closers: Array<() => void> = [];
  const deadline = Date.now() + maxMs;
  let next = 0;
  let failed = 0;
  let firstError: string | undefined;
  await Promise.all(
    Array.from({ length: OPEN_CONCURRENCY }, async () => {
      while (next < count && Date.now() < deadline) {
        next += 1;
        // A session that fails to open is counted, not fatal: the figure says how many were held.
        try {
          const session = await McpHttpSession.open(url, token);
          closers.push(await session.openStream(streams));
        } catch (error) {
          failed += 1;
          firstError ??= error instanceof Error ? error.message : String(error);
        }
      }
    }),
  );
  // Let the server settle the last handshakes before reading its memory.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const rssAfterMb = child.rssMb();
  for (const close of closers) close();
  streams.destroy();
  if (failed > 0) process.stderr.write(`[bench] ${failed} of ${count} sessions failed to open; first: ${firstError}\n`);
  return { sessions: closers.length, failed, rssBeforeMb, rssAfterMb, perSessionKb: ((rssAfterMb - rssBeforeMb) * 1024) / Math.max(1, closers.length) };
}

export function sessionRows(rows: Array<{ path: string; memory: SessionMemory }>): Array<Record<string, string | number>> {
  const baseline = rows[0].memory;
  return rows.map(({ path, memory }) => ({
    path,
    'open sessions': memory.sessions,
    'failed to open': memory.failed,
    'RSS before (MB)': round(memory.rssBeforeMb, 1),
    'RSS with sessions (MB)': round(memory.rssAfterMb, 1),
    'KB per session': round(memory.perSessionKb, 1),
    'per-session cost / baseline': round(memory.perSessionKb / baseline.perSessionKb, 2),
  }));
}
