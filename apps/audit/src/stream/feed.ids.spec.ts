import type { Principal } from '@estate/contracts';
import { feedViewerOf } from '../domain/feed.visibility';
import { FeedCursorSeal } from './feed-cursor.seal';
import { feedIdsFor } from './feed.ids';

const seal = new FeedCursorSeal('k'.repeat(40));
const agent: Principal = { id: 'qa-agent', tenant: 'acme', scopes: ['bank:read'], clearance: 'internal' };
const admin: Principal = { id: 'root', scopes: ['estate:admin'], clearance: 'restricted' };
const idsOf = (principal: Principal, with_ = seal) => feedIdsFor(with_, principal, feedViewerOf(principal));

describe('feed ids', () => {
  it('gives an audit reader plain positions and takes them back', () => {
    const ids = idsOf(admin);
    expect(ids.idOf(159)).toBe('159');
    expect(ids.positionOf('159', 'Last-Event-ID')).toEqual({ ok: true, value: 159 });
    expect(ids.positionOf('abc', 'Last-Event-ID')).toMatchObject({ ok: false, parameter: 'Last-Event-ID' });
  });

  it('gives anyone else a cursor that shows no position, is the same for the same event, and opens only for its subject and tenant', () => {
    const ids = idsOf(agent);
    const [at2, at18, at159] = [2, 18, 159].map((seq) => ids.idOf(seq));
    for (const id of [at2, at18, at159]) expect(id).toMatch(/^c1\.[A-Za-z0-9_-]{48}$/);
    expect(new Set([at2, at18, at159]).size).toBe(3);
    expect(ids.idOf(18)).toBe(at18);
    expect(ids.positionOf(at18, 'Last-Event-ID')).toEqual({ ok: true, value: 18 });
    // A fresh token of the same subject and tenant resumes; another scope set changes nothing.
    expect(idsOf({ ...agent, scopes: ['bank:read', 'bank:write'] }).positionOf(at18, 'since')).toEqual({ ok: true, value: 18 });
    for (const other of [{ ...agent, id: 'someone-else' }, { ...agent, tenant: 'globex' }]) {
      expect(idsOf(other).positionOf(at18, 'Last-Event-ID')).toMatchObject({ ok: false, parameter: 'Last-Event-ID', message: expect.stringContaining('not a cursor this feed sent') });
    }
    expect(idsOf(agent, new FeedCursorSeal('x'.repeat(40))).positionOf(at18, 'since')).toMatchObject({ ok: false, parameter: 'since' });
  });

  it('refuses an altered cursor and a plain position other than 0 from a filtered reader', () => {
    const ids = idsOf(agent);
    const cursor = ids.idOf(18);
    const flipped = `${cursor.slice(0, 10)}${cursor[10] === 'A' ? 'B' : 'A'}${cursor.slice(11)}`;
    for (const forged of [flipped, `${cursor}A`, cursor.slice(0, -1), 'c1.', 'c1.not-a-cursor']) {
      expect(ids.positionOf(forged, 'Last-Event-ID')).toMatchObject({ ok: false, parameter: 'Last-Event-ID' });
    }
    expect(ids.positionOf('0', 'since')).toEqual({ ok: true, value: 0 });
    expect(ids.positionOf('17', 'since')).toMatchObject({ ok: false, parameter: 'since', message: expect.stringContaining('plain feed positions are for estate:admin and estate:audit') });
    expect(ids.positionOf(['a', 'b'], 'Last-Event-ID')).toMatchObject({ ok: false, parameter: 'Last-Event-ID' });
  });
});
