/**
 * Retention on PostgreSQL: each call is one batch in one transaction (see RetentionStore and
 * BatchBound in ../retention.ts; pg-retention-batch.ts runs it, in pieces, as the only pruner
 * among replicas), and here what each deletes. Space is reclaimed by autovacuum, which reuses
 * what the deletes freed.
 */
import type pg from 'pg';
import type {
  BatchBound,
  DeadCutoffs,
  ForgottenMessage,
  PruneBatch,
  RetentionStore,
} from '../retention.ts';
import { batchRunner, type Done, NOTHING, type Pieces } from './pg-retention-batch.ts';
import { PRUNE_DELIVERED } from './pg-sink-outbox.ts';
import { PRUNE_SETTLED } from './pg-submissions.ts';

const BODIES_MARK = 'bodies';
const FINISHED = ['done', 'skipped'] as const;

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

type ArrivedEvent = {
  occurred_at: string;
  event_id: string;
  received_at: number;
  seq: number;
  state: string;
};

const ARRIVED_AFTER = `
  SELECT occurred_at, event_id, received_at, seq, state FROM events
   WHERE (received_at, seq) > ($1, $2) AND received_at < $3
   ORDER BY received_at, seq LIMIT $4`;

const DROP_BODIES = `
  UPDATE events e SET body = '\\x'::bytea
    FROM unnest($1::text[], $2::text[]) AS k(occurred_at, event_id)
   WHERE e.occurred_at = k.occurred_at AND e.event_id = k.event_id
     AND length(e.body) > 0`;

const SET_MARK = `
  INSERT INTO retention_marks (name, through_at, through_id) VALUES ($1, $2, $3)
  ON CONFLICT (name) DO UPDATE
     SET through_at = EXCLUDED.through_at, through_id = EXCLUDED.through_id`;

const FORGET_SEEN = `
  DELETE FROM seen_events WHERE event_id IN (
    SELECT event_id FROM seen_events WHERE received_at < $1
     ORDER BY received_at LIMIT $2)`;

type ClosedMessage = {
  message_id: string;
  transfer: 'inbound' | 'outbound';
  import_location: string | null;
};

// Final message sides whose last news is older than $1, with their status changes.
const PRUNE_MESSAGES = `
  WITH doomed AS (
    SELECT message_id, transfer FROM messages
     WHERE last_event_at < $1 AND delivery_status IN ('delivered', 'failed', 'parked')
     ORDER BY last_event_at LIMIT $2
  ), changes AS (
    DELETE FROM status_changes s USING doomed d
     WHERE s.message_id = d.message_id AND s.transfer = d.transfer
  )
  DELETE FROM messages m USING doomed d
   WHERE m.message_id = d.message_id AND m.transfer = d.transfer
  RETURNING m.message_id, m.transfer, m.import_location`;

/**
 * `clock` (ms, monotonic) times the budget; tests pass one that runs fast to play a slow
 * statement.
 */
export function createPostgresRetentionStore(
  pool: pg.Pool,
  clock: () => number = () => performance.now(),
): RetentionStore {
  const batch = batchRunner(pool, clock);
  /** A set statement ($1 before, $2 a row limit) run in pieces until done or out of budget. */
  const deleteBefore = (sql: string, before: number, bound: BatchBound): Promise<PruneBatch> =>
    batch(bound, NOTHING, async (client, pieces) => {
      let count = 0;
      const more = await pieces(async (limit) => {
        const { rowCount } = await client.query(sql, [before, limit]);
        count += rowCount ?? 0;
        return rowCount ?? 0;
      });
      return { count, more };
    });

  return {
    dropBodies: (before, bound) =>
      batch(bound, NOTHING, (client, pieces) => dropBodies(client, pieces, before)),
    pruneEvents: (before, bound, { rememberSince }) =>
      batch(bound, NOTHING, (client, pieces) =>
        pruneFinished(client, pieces, before, bound.limit, rememberSince),
      ),
    pruneDeadEvents: (cutoffs, bound, { rememberSince }) =>
      batch(bound, NOTHING, (client, pieces) => pruneDead(client, pieces, cutoffs, rememberSince)),
    forgetEventIds: (before, bound) => deleteBefore(FORGET_SEEN, before, bound),
    async pruneMessages(before, bound) {
      const forgotten: ForgottenMessage[] = [];
      return batch(bound, { ...NOTHING, forgotten }, (client, pieces) =>
        pruneClosedMessages(client, pieces, before, forgotten),
      );
    },
    // Delivered notices of the status sink's outbox (deleteBefore).
    pruneNotices: (before, bound) => deleteBefore(PRUNE_DELIVERED, before, bound),
    // Settled invoices of the submission outbox, the same way.
    pruneSubmissions: (before, bound) => deleteBefore(PRUNE_SETTLED, before, bound),
    reclaim: async () => ({ count: 0, more: false, ms: 0, workMs: 0 }),
  };
}

/** How many events a deleteEvents statement deleted. */
async function deletedCount(
  client: pg.PoolClient,
  sql: string,
  values: unknown[],
): Promise<number> {
  const { rows } = await client.query<{ n: number }>(sql, values);
  return rows[0]?.n ?? 0;
}

/**
 * Events after the mark in arrival order (the events_received index walked forward), bodies of
 * the finished ones emptied; the mark moves to the last one looked at.
 */
async function dropBodies(
  client: pg.PoolClient,
  pieces: Pieces,
  before: number,
): Promise<Done<object>> {
  const { rows: marks } = await client.query<{ through_at: number; through_id: number }>(
    'SELECT through_at, through_id FROM retention_marks WHERE name = $1',
    [BODIES_MARK],
  );
  let from = marks[0] ?? { through_at: 0, through_id: 0 };
  let count = 0;
  let moved = false;
  const more = await pieces(async (limit) => {
    const { rows } = await client.query<ArrivedEvent>(ARRIVED_AFTER, [
      from.through_at,
      from.through_id,
      before,
      limit,
    ]);
    const finished = rows.filter((row) => row.state === 'done' || row.state === 'skipped');
    const { rowCount } = await client.query(DROP_BODIES, [
      finished.map((row) => row.occurred_at),
      finished.map((row) => row.event_id),
    ]);
    count += rowCount ?? 0;
    const last = rows.at(-1);
    if (last !== undefined) {
      from = { through_at: last.received_at, through_id: last.seq };
      moved = true;
    }
    return rows.length;
  });
  if (moved) await client.query(SET_MARK, [BODIES_MARK, from.through_at, from.through_id]);
  return { count, more };
}

/** Finished events, done then skipped, each state's in pieces. */
async function pruneFinished(
  client: pg.PoolClient,
  pieces: Pieces,
  before: number,
  limit: number,
  rememberSince: number,
): Promise<Done<object>> {
  let count = 0;
  for (const state of FINISHED) {
    const more = await pieces(async (rows) => {
      const n = await deletedCount(client, PRUNE_FINISHED, [
        state,
        before,
        Math.min(rows, limit - count),
        rememberSince,
      ]);
      count += n;
      return n;
    });
    // Stopped at the limit or the budget: the next batch goes on from here.
    if (more || count >= limit) return { count, more: true };
  }
  return { count, more: false };
}

/** Dead events nobody will act on any more (RetentionStore.pruneDeadEvents), in pieces. */
async function pruneDead(
  client: pg.PoolClient,
  pieces: Pieces,
  cutoffs: DeadCutoffs,
  rememberSince: number,
): Promise<Done<object>> {
  let count = 0;
  const more = await pieces(async (limit) => {
    const n = await deletedCount(client, PRUNE_DEAD, [
      cutoffs.settled,
      cutoffs.any,
      limit,
      rememberSince,
    ]);
    count += n;
    return n;
  });
  return { count, more };
}

/** Final message sides, in pieces; each deleted one is added to `forgotten`. */
async function pruneClosedMessages(
  client: pg.PoolClient,
  pieces: Pieces,
  before: number,
  forgotten: ForgottenMessage[],
): Promise<Done<{ forgotten: ForgottenMessage[] }>> {
  const more = await pieces(async (limit) => {
    const { rows } = await client.query<ClosedMessage>(PRUNE_MESSAGES, [before, limit]);
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
}
