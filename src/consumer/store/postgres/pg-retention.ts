/**
 * Retention on PostgreSQL: each call is one batch in one transaction (see RetentionStore in
 * ../store.ts). Replicas sharing the database take turns: a batch first tries a transaction
 * advisory lock and, if another replica holds it, reports nothing to do; that replica is
 * pruning. Space is reclaimed by autovacuum, which reuses what the deletes freed.
 */
import type pg from 'pg';
import type { ForgottenMessage, PruneBatch, RetentionStore } from '../store.ts';
import { inTransaction } from './pool.ts';

/** Arbitrary, distinct from the migration lock (migrate.ts). */
const RETENTION_LOCK = 7_281_349_012;
const BODIES_MARK = 'bodies';
const FINISHED = ['done', 'skipped'] as const;
const NOTHING: PruneBatch = { count: 0, more: false };

async function asTheOnlyPruner<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T | undefined> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ locked: boolean }>(
      'SELECT pg_try_advisory_xact_lock($1) AS locked',
      [RETENTION_LOCK],
    );
    return rows[0]?.locked === true ? work(client) : undefined;
  });
}

export function createPostgresRetentionStore(pool: pg.Pool): RetentionStore {
  return {
    async dropBodies(before, limit) {
      const batch = await asTheOnlyPruner(pool, async (client) => {
        const { rows: marks } = await client.query<{ through_at: number; through_id: number }>(
          'SELECT through_at, through_id FROM retention_marks WHERE name = $1',
          [BODIES_MARK],
        );
        const from = marks[0] ?? { through_at: 0, through_id: 0 };
        // Events after the mark in arrival order (the events_received index walked forward),
        // bodies of the finished ones emptied; the mark moves to the last one looked at.
        const { rows } = await client.query<{
          occurred_at: string;
          event_id: string;
          received_at: number;
          seq: number;
          state: string;
        }>(
          `SELECT occurred_at, event_id, received_at, seq, state FROM events
            WHERE (received_at, seq) > ($1, $2) AND received_at < $3
            ORDER BY received_at, seq LIMIT $4`,
          [from.through_at, from.through_id, before, limit],
        );
        const finished = rows.filter((row) => row.state === 'done' || row.state === 'skipped');
        const { rowCount } = await client.query(
          `UPDATE events e SET body = '\\x'::bytea
             FROM unnest($1::text[], $2::text[]) AS k(occurred_at, event_id)
            WHERE e.occurred_at = k.occurred_at AND e.event_id = k.event_id
              AND length(e.body) > 0`,
          [finished.map((row) => row.occurred_at), finished.map((row) => row.event_id)],
        );
        const last = rows.at(-1);
        if (last !== undefined) {
          await client.query(
            `INSERT INTO retention_marks (name, through_at, through_id) VALUES ($1, $2, $3)
             ON CONFLICT (name) DO UPDATE
                SET through_at = EXCLUDED.through_at, through_id = EXCLUDED.through_id`,
            [BODIES_MARK, last.received_at, last.seq],
          );
        }
        return { count: rowCount ?? 0, more: rows.length === limit };
      });
      return batch ?? NOTHING;
    },

    async pruneEvents(before, limit, { rememberSince }) {
      const batch = await asTheOnlyPruner(pool, async (client) => {
        let count = 0;
        for (const state of FINISHED) {
          const { rows } = await client.query<{ n: number }>(
            `WITH doomed AS (
               SELECT occurred_at, event_id, received_at FROM events
                WHERE state = $1 AND received_at < $2
                ORDER BY received_at LIMIT $3
             ), remembered AS (
               INSERT INTO seen_events (event_id, received_at)
               SELECT event_id, received_at FROM doomed WHERE received_at >= $4
               ON CONFLICT (event_id) DO NOTHING
             ), changes AS (
               DELETE FROM status_changes WHERE event_id IN (SELECT event_id FROM doomed)
             ), deleted AS (
               DELETE FROM events WHERE (occurred_at, event_id) IN
                 (SELECT occurred_at, event_id FROM doomed) RETURNING 1
             )
             SELECT count(*)::int AS n FROM deleted`,
            [state, before, limit - count, rememberSince],
          );
          count += rows[0]?.n ?? 0;
          if (count === limit) break;
        }
        return { count, more: count === limit };
      });
      return batch ?? NOTHING;
    },

    async forgetEventIds(before, limit) {
      const batch = await asTheOnlyPruner(pool, async (client) => {
        const { rowCount } = await client.query(
          `DELETE FROM seen_events WHERE event_id IN (
             SELECT event_id FROM seen_events WHERE received_at < $1
              ORDER BY received_at LIMIT $2)`,
          [before, limit],
        );
        const count = rowCount ?? 0;
        return { count, more: count === limit };
      });
      return batch ?? NOTHING;
    },

    async pruneMessages(before, limit) {
      const batch = await asTheOnlyPruner(pool, async (client) => {
        const { rows } = await client.query<{
          message_id: string;
          transfer: 'inbound' | 'outbound';
          import_location: string | null;
        }>(
          `WITH doomed AS (
             SELECT message_id, transfer FROM messages
              WHERE last_event_at < $1 AND delivery_status IN ('delivered', 'failed', 'parked')
              ORDER BY last_event_at LIMIT $2
           ), changes AS (
             DELETE FROM status_changes s USING doomed d
              WHERE s.message_id = d.message_id AND s.transfer = d.transfer
           )
           DELETE FROM messages m USING doomed d
            WHERE m.message_id = d.message_id AND m.transfer = d.transfer
           RETURNING m.message_id, m.transfer, m.import_location`,
          [before, limit],
        );
        const forgotten: ForgottenMessage[] = rows.map((row) => ({
          messageId: row.message_id,
          transfer: row.transfer,
          importLocation: row.import_location,
        }));
        return { count: rows.length, more: rows.length === limit, forgotten };
      });
      return batch ?? { ...NOTHING, forgotten: [] };
    },

    reclaim: async () => NOTHING,
  };
}
