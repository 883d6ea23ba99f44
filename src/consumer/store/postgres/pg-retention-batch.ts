/**
 * How a retention batch runs on PostgreSQL (pg-retention.ts says what each deletes): in one
 * transaction, as the only pruner, its statement run in up to four pieces of a quarter of its
 * limit each, stopping after the piece that used its budget, so a batch whose rows turn out
 * slow (pages not in memory, a checkpoint under way) ends within a quarter of its size.
 *
 * Replicas sharing the database take turns: a batch first tries a transaction advisory lock
 * and, if another replica holds it, reports nothing to do; that replica is pruning.
 */
import type pg from 'pg';
import type { BatchBound, PruneBatch } from '../retention.ts';
import { inTransaction } from './pool.ts';

/** Arbitrary, distinct from the migration lock (migrate.ts). */
const RETENTION_LOCK = 7_281_349_012;
const PIECES = 4;

/** What a batch reports besides its time. */
export type Done<T> = T & { count: number; more: boolean };
export const NOTHING: Done<object> = { count: 0, more: false };

/**
 * Runs `piece(rows)` (a statement of at most `rows` rows, returning how many it did) until a
 * piece does fewer, the batch's limit is reached or its budget is used; resolves to `more`:
 * true when it stopped at the limit or the budget.
 */
export type Pieces = (piece: (rows: number) => Promise<number>) => Promise<boolean>;

/** What a batch does in its transaction, on `client`, its statements run through `pieces`. */
export type Work<T> = (client: pg.PoolClient, pieces: Pieces) => Promise<Done<T>>;

/** Runs one batch as the only pruner; `nothing` when another replica holds the lock. */
export type Batch = <T extends object>(
  bound: BatchBound,
  nothing: Done<T>,
  work: Work<T>,
) => Promise<Done<T> & PruneBatch>;

/**
 * One batch as the only pruner: `work` runs its statements in pieces (Pieces) until a piece
 * does fewer, the limit is reached or the budget is used. Nothing to do when another replica
 * holds the lock.
 */
export function batchRunner(pool: pg.Pool, clock: () => number): Batch {
  return async (bound, nothing, work) => {
    let started = clock();
    let worked = 0;
    const result = await inTransaction(pool, async (client) => {
      started = clock();
      const { rows } = await client.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_xact_lock($1) AS locked',
        [RETENTION_LOCK],
      );
      if (rows[0]?.locked !== true) return nothing;
      const pieces: Pieces = async (piece) => {
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
  };
}
