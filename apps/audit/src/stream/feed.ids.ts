import type { Principal } from '@estate/contracts';
import type { Parsed } from '../domain/audit-query.parser';
import type { FeedViewer } from '../domain/feed.visibility';
import { isSealedCursor, type FeedCursorSeal } from './feed-cursor.seal';

/** How one subscriber's SSE ids are written, and read back from Last-Event-ID or `since`. */
export interface FeedIds {
  /** The id of the frame for the entry at this seq. */
  idOf(seq: number): string;
  /** The seq an id this subscriber was sent stands for; `parameter` names where it came from. */
  positionOf(id: unknown, parameter: string): Parsed<number>;
}

const POSITION = /^[0-9]{1,16}$/;

/** Whether `since` holds an id (a position or a cursor) rather than a time. */
export function isFeedId(value: unknown): value is string {
  return typeof value === 'string' && (POSITION.test(value) || isSealedCursor(value));
}

/**
 * A reader of the whole feed (`estate:admin`, `estate:audit`) gets plain positions. Anyone else
 * gets cursors sealed to its subject and tenant, the pair a reconnect with a fresh token keeps, and
 * may send back only those or 0 (the start): a plain position would let it find, by trying, where
 * each of its events sits, and so count again what was hidden between them.
 */
export function feedIdsFor(seal: FeedCursorSeal, principal: Principal, viewer: FeedViewer): FeedIds {
  const holder = JSON.stringify([principal.id, principal.tenant ?? null]);
  const wholeFeed = viewer.kind === 'all';
  return {
    idOf: (seq) => (wholeFeed ? String(seq) : seal.seal(seq, holder)),
    positionOf: (id, parameter) => {
      if (typeof id === 'string' && isSealedCursor(id)) {
        const position = seal.open(id, holder);
        if (position !== undefined) return { ok: true, value: position };
        return { ok: false, parameter, message: `"${parameter}" is not a cursor this feed sent to this subject and tenant: it was altered, sealed by another estate, or sent to someone else` };
      }
      const position = typeof id === 'string' && POSITION.test(id) ? Number(id) : undefined;
      if (position !== undefined && Number.isSafeInteger(position) && (wholeFeed || position === 0)) return { ok: true, value: position };
      const rule = wholeFeed ? 'the id of an event this feed sent' : 'the id of an event this feed sent (an opaque cursor) or 0; plain feed positions are for estate:admin and estate:audit';
      return { ok: false, parameter, message: `"${parameter}" must be ${rule}` };
    },
  };
}
