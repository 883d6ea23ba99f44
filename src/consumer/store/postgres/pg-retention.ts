/**
 * Retention on PostgreSQL: each call is one batch in one transaction (see RetentionStore and
 * BatchBound in ../store.ts). A batch runs its statement in up to four pieces of a quarter of its
 * limit each and stops after the piece that used its budget, so a batch whose rows turn out
 * slow (pages not in memory, a checkpoint under way) ends within a quarter of its size.
 *
 * Replicas sharing the database take turns: a batch first tries a transaction advisory lock
 * and, if another replica holds it, reports nothing to do; that replica is pruning. Space is
 * reclaimed by autovacuum, which reuses what the deletes freed.
 */
import type pg from 'pg';
import type { BatchBound, ForgottenMessage, PruneBatch, RetentionStore } from '../retention.ts';
import { PRUNE_DELIVERED } from './pg-sink-outbox.ts';
import { PRUNE_SETTLED } from './pg-submissions.ts';
import { inTransaction } from './pool.ts';

/** Arbitrary, distinct from the migration lock (migrate.ts). */
const RETENTION_LOCK = 7_281_349_012;
const BODIES_MARK = 'bodies';
const FINISHED = ['done', 'skipped'] as const;
const PIECES = 4;

/**
 * Deletes the events `doomed` selects ($3 rows at most) with their status changes, keeping the
 * eventIds of those received since $4 in the dedupe record; returns how many.
 */
const deleteEvents = (doomed: string) => `
  WITH doomed AS (${doomed}
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
  SELECT count(*)::int AS n FROM deleted`;

const PRUNE_FINISHED = deleteEvents(`
    SELECT occurred_at, event_id, received_at FROM events
     WHERE state = $1 AND received_at < $2
     ORDER BY received_at LIMIT $3`);

// A dead event of an open message younger than $2 is passed over at each batch, which costs
// what the dead events retention keeps, not history.
const PRUNE_DEAD = deleteEvents(`
    SELECT e.occurred_at, e.event_id, e.received_at FROM events e
     WHERE e.state = 'dead' AND e.received_at < $1
       AND (e.received_at < $2 OR EXISTS (
             SELECT 1 FROM messages m
              WHERE m.message_id = e.message_id AND m.transfer = e.transfer
                AND (m.acknowledged_at IS NOT NULL
                     OR m.delivery_status IN ('delivered', 'failed', 'parked'))))
     ORDER BY e.received_at LIMIT $3`);

/** What a batch reports besides its time. */
type Done<T> = T & { count: number; more: boolean };
const NOTHING: Done<object> = { count: 0, more: false };

/**
 * `clock` (ms, monotonic) times the budget; tests pass one that runs fast to play a slow
 * statement.
 */
export function createPostgresRetentionStore(
  pool: pg.Pool,
  clock: () => number = () => performance.now(),
): RetentionStore {
  /**
   * One batch as the only pruner: `work` runs `piece(rows)` (a statement of at most `rows`
   * rows, returning how many it did) until a piece does fewer, the limit is reached or the
   * budget is used. Nothing to do when another replica holds the lock.
   */
  async function batch<T extends object>(
    bound: BatchBound,
    nothing: Done<T>,
    work: (
      client: pg.PoolClient,
      pieces: (piece: (rows: number) => Promise<number>) => Promise<boolean>,
    ) => Promise<Done<T>>,
  ): Promise<Done<T> & PruneBatch> {
    let started = clock();
    let worked = 0;
    const result = await inTransaction(pool, async (client) => {
      started = clock();
      const { rows } = await client.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_xact_lock($1) AS locked',
        [RETENTION_LOCK],
      );
      if (rows[0]?.locked !== true) return nothing;
      // Resolves to `more`: true when it stopped at the limit or the budget.
      const pieces = async (piece: (rows: number) => Promise<number>) => {
        const size = Math.max(1, Math.ceil(bound.limit / PIECES));
        for (let done = 0; ; ) {
          const rows = Math.min(size, bound.limit - done);
          const did = await piece(rows);
          done += did;
          if (did < rows) return false;
          if (done >= bound.limit || clock() - started >= bound.budgetMs) return true;
        }
      };
      const done = await work(client, pieces);
      worked = clock() - started;
      return done;
    });
    return { ...result, ms: clock() - started, workMs: worked };
  }

  /** A set statement ($1 before, $2 a row limit) run in pieces until done or out of budget. */
  function deleteBefore(sql: string, before: number, bound: BatchBound): Promise<PruneBatch> {
    return batch(bound, NOTHING, async (client, pieces) => {
      let count = 0;
      const more = await pieces(async (limit) => {
        const { rowCount } = await client.query(sql, [before, limit]);
        count += rowCount ?? 0;
        return rowCount ?? 0;
      });
      return { count, more };
    });
  }

  return {
    async dropBodies(before, bound) {
      return batch(bound, NOTHING, async (client, pieces) => {
        const { rows: marks } = await client.query<{ through_at: number; through_id: number }>(
          'SELECT through_at, through_id FROM retention_marks WHERE name = $1',
          [BODIES_MARK],
        );
        let from = marks[0] ?? { through_at: 0, through_id: 0 };
        let count = 0;
        let moved = false;
        const more = await pieces(async (limit) => {
          // Events after the mark in arrival order (the events_received index walked
          // forward), bodies of the finished ones emptied; the mark moves to the last one
          // looked at.
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
          count += rowCount ?? 0;
          const last = rows.at(-1);
          if (last !== undefined) {
            from = { through_at: last.received_at, through_id: last.seq };
            moved = true;
          }
          return rows.length;
        });
        if (moved) {
          await client.query(
            `INSERT INTO retention_marks (name, through_at, through_id) VALUES ($1, $2, $3)
             ON CONFLICT (name) DO UPDATE
                SET through_at = EXCLUDED.through_at, through_id = EXCLUDED.through_id`,
            [BODIES_MARK, from.through_at, from.through_id],
          );
        }
        return { count, more };
      });
    },

    async pruneEvents(before, bound, { rememberSince }) {
      return batch(bound, NOTHING, async (client, pieces) => {
        let count = 0;
        for (const state of FINISHED) {
          const more = await pieces(async (limit) => {
            const { rows } = await client.query<{ n: number }>(PRUNE_FINISHED, [
              state,
              before,
              Math.min(limit, bound.limit - count),
              rememberSince,
            ]);
            const n = rows[0]?.n ?? 0;
            count += n;
            return n;
          });
          // Stopped at the limit or the budget: the next batch goes on from here.
          if (more || count >= bound.limit) return { count, more: true };
        }
        return { count, more: false };
      });
    },

    async pruneDeadEvents(cutoffs, bound, { rememberSince }) {
      return batch(bound, NOTHING, async (client, pieces) => {
        let count = 0;
        const more = await pieces(async (limit) => {
          const { rows } = await client.query<{ n: number }>(PRUNE_DEAD, [
            cutoffs.settled,
            cutoffs.any,
            limit,
            rememberSince,
          ]);
          const n = rows[0]?.n ?? 0;
          count += n;
          return n;
        });
        return { count, more };
      });
    },

    async forgetEventIds(before, bound) {
      return batch(bound, NOTHING, async (client, pieces) => {
        let count = 0;
        const more = await pieces(async (limit) => {
          const { rowCount } = await client.query(
            `DELETE FROM seen_events WHERE event_id IN (
               SELECT event_id FROM seen_events WHERE received_at < $1
                ORDER BY received_at LIMIT $2)`,
            [before, limit],
          );
          count += rowCount ?? 0;
          return rowCount ?? 0;
        });
        return { count, more };
      });
    },

    async pruneMessages(before, bound) {
      const forgotten: ForgottenMessage[] = [];
      return batch(bound, { ...NOTHING, forgotten }, async (client, pieces) => {
        const more = await pieces(async (limit) => {
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
          for (const row of rows) {
            forgotten.push({
              messageId: row.message_id,
              transfer: row.transfer,
              importLocation: row.import_location,
            });
          }
          return rows.length;
        });
        return { count: forgotten.length, more, forgotten };
      });
    },

    /** Delivered notices of the status sink's outbox (deleteBefore). */
    pruneNotices: (before, bound) => deleteBefore(PRUNE_DELIVERED, before, bound),

    /** Settled invoices of the submission outbox, the same way. */
    pruneSubmissions: (before, bound) => deleteBefore(PRUNE_SETTLED, before, bound),

    reclaim: async () => ({ count: 0, more: false, ms: 0, workMs: 0 }),
  };
}
