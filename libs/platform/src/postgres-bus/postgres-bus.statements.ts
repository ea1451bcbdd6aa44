/*
 * The log's hot statements, raw and named: PostgreSQL parses and plans each once per connection,
 * not once per call, and TypeORM (whose query() cannot name a statement) stays off the publish
 * and consume paths.
 */

/**
 * A whole send in one statement, so one round trip and one implicit transaction: the UPDATE
 * reserves the offsets and holds the topic row's lock until the statement commits (publishers of
 * one topic take turns, commit in offset order, and a reader never sees offset n+1 before n), and
 * the NOTIFY goes out at that commit. $1 topic, $2 count, $3–$5 keys, values, headers, $6 whether
 * each message is the newest of its key in this send, $7 the channel.
 *
 * A compacted topic keeps only the newest message per key: messages superseded inside the send
 * are not inserted (their offsets stay unused, a gap as compaction leaves), and older ones are
 * deleted. The DELETE sees the statement's snapshot, taken before the lock was granted: a send
 * that committed meanwhile would escape it. So on a compacted topic the UPDATE only applies if
 * the row still holds the next offset the snapshot saw (offsets only grow, so nothing committed
 * in between); otherwise no row comes back and the caller appends with the lock taken first.
 */
export const APPEND = {
  name: 'bus-append',
  text: `WITH topic AS (
           UPDATE bus.topics SET next_offset = next_offset + $2
            WHERE name = $1
              AND (NOT compacted OR next_offset = (SELECT seen.next_offset FROM bus.topics seen WHERE seen.name = $1))
           RETURNING next_offset - $2 AS first, compacted),
         added AS (
           INSERT INTO bus.messages (topic, "offset", key, value, headers)
           SELECT $1, t.first + m.i - 1, m.key, m.value, m.headers
             FROM topic t, unnest($3::bytea[], $4::bytea[], $5::bytea[], $6::boolean[]) WITH ORDINALITY AS m(key, value, headers, newest, i)
            WHERE NOT t.compacted OR m.newest),
         superseded AS (
           DELETE FROM bus.messages old USING topic t
            WHERE t.compacted AND old.topic = $1 AND old.key = ANY($3::bytea[]) AND old."offset" < t.first)
         SELECT pg_notify($7, $1) FROM topic`,
};

/** Locks a topic's row, creating it first if nobody declared it (a broker's auto-creation). */
export const CREATE_TOPIC = `INSERT INTO bus.topics (name) VALUES ($1) ON CONFLICT (name) DO NOTHING`;
export const LOCK_TOPIC = `SELECT 1 FROM bus.topics WHERE name = $1 FOR UPDATE`;

/** A page of a topic; PostgresBusLog.read says why the range is bounded. */
export const READ = {
  name: 'bus-read',
  text: `SELECT m."offset"::text AS "offset", encode(m.key, 'base64') AS key, encode(m.value, 'base64') AS value, encode(m.headers, 'base64') AS headers
           FROM bus.messages m
          WHERE m.topic = $1 AND m."offset" >= $2::bigint
            AND m."offset" < (SELECT CASE WHEN t.compacted THEN t.next_offset ELSE least(t.next_offset, $2::bigint + $3::bigint) END FROM bus.topics t WHERE t.name = $1)
          ORDER BY m."offset" LIMIT $3`,
};

export const OFFSETS = {
  name: 'bus-offsets',
  text: `SELECT start_offset::text AS low, next_offset::text AS high FROM bus.topics WHERE name = $1`,
};

export const COMMITTED = {
  name: 'bus-committed',
  text: `SELECT next_offset::text AS next FROM bus.group_offsets WHERE group_id = $1 AND topic = $2`,
};

export const COMMIT = {
  name: 'bus-commit',
  text: `INSERT INTO bus.group_offsets (group_id, topic, next_offset, updated_at) VALUES ($1, $2, $3, now())
         ON CONFLICT (group_id, topic) DO UPDATE SET next_offset = excluded.next_offset, updated_at = excluded.updated_at`,
};
