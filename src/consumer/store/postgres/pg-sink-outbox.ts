/**
 * The status sink's outbox on PostgreSQL (see migrations/010_sink_outbox.sql): the same rules
 * as the SQLite store (sqlite-sink-outbox.ts). Replicas claiming at once take different stream
 * heads: the heads are locked with FOR UPDATE SKIP LOCKED and leased in the same statement.
 */
import type pg from 'pg';
import {
  boundedError,
  noticeStream,
  type SinkOutboxColumns,
  type SinkOutboxStatsColumns,
  type SinkOutboxStore,
  toOutboxRow,
  toOutboxStats,
} from '../sink-outbox.ts';
import type { StatusNotice } from '../status-notice.ts';

/**
 * Queues a notice inside the caller's transaction (a status write's); a notice id queued
 * already is left as it is. `traceParent`: the status write's caller's context, taken when
 * the store was called.
 */
export async function queueNotice(
  client: pg.PoolClient,
  notice: StatusNotice,
  now: number,
  traceParent: string | null,
): Promise<void> {
  const stream = noticeStream(notice);
  await client.query(
    `INSERT INTO sink_outbox (notice_id, message_id, transfer, kind, notice, created_at,
                              next_attempt_at, trace_parent)
     VALUES ($1, $2, $3, $4, $5, $6, $6, $7)
     ON CONFLICT (notice_id) DO NOTHING`,
    [
      notice.id,
      stream.messageId,
      stream.transfer,
      stream.kind,
      JSON.stringify(notice),
      now,
      traceParent,
    ],
  );
}

// Stream heads (a stream's lowest undelivered seq, through sink_outbox_stream) that are due and
// not leased, in queue order (sink_outbox_pending: the backlog only), locked (SKIP LOCKED: one
// another replica holds is left to it) and leased in one statement. A row another replica leased and
// committed meanwhile is checked again once locked, and left out: its lease is live.
const CLAIM_DUE = `
  UPDATE sink_outbox SET locked_until = $3
   WHERE seq IN (
     SELECT o.seq FROM sink_outbox o
      WHERE o.delivered_at IS NULL AND o.next_attempt_at <= $1
        AND (o.locked_until IS NULL OR o.locked_until < $1)
        AND o.seq = (SELECT min(p.seq) FROM sink_outbox p
                      WHERE p.message_id = o.message_id AND p.transfer = o.transfer
                        AND p.kind = o.kind AND p.delivered_at IS NULL)
      ORDER BY o.seq LIMIT $2
      FOR UPDATE SKIP LOCKED)
  RETURNING *`;

/** Delivered notices, oldest delivery first; never an undelivered one. */
export const PRUNE_DELIVERED = `
  DELETE FROM sink_outbox WHERE seq IN (
    SELECT seq FROM sink_outbox WHERE delivered_at IS NOT NULL AND delivered_at < $1
     ORDER BY delivered_at LIMIT $2)`;

// The backlog only (sink_outbox_pending), not history.
const STATS = `
  SELECT count(*)::int AS pending, count(*) FILTER (WHERE attempts > 0)::int AS failing,
         min(created_at) AS oldest
    FROM sink_outbox WHERE delivered_at IS NULL`;

const LISTS = {
  all: 'SELECT * FROM sink_outbox ORDER BY seq DESC LIMIT $1',
  pending: 'SELECT * FROM sink_outbox WHERE delivered_at IS NULL ORDER BY seq DESC LIMIT $1',
  failing: `SELECT * FROM sink_outbox WHERE delivered_at IS NULL AND attempts > 0
             ORDER BY seq DESC LIMIT $1`,
} as const;

export function createPostgresSinkOutboxStore(pool: pg.Pool): SinkOutboxStore {
  return {
    async claimDue(now, limit, leaseMs) {
      const { rows } = await pool.query<SinkOutboxColumns>(CLAIM_DUE, [now, limit, now + leaseMs]);
      // RETURNING follows no order.
      return rows.map(toOutboxRow).sort((a, b) => a.seq - b.seq);
    },
    async markDelivered(seqs, now) {
      if (seqs.length === 0) return;
      await pool.query(
        `UPDATE sink_outbox SET delivered_at = $2, locked_until = NULL
          WHERE seq = ANY($1::bigint[]) AND delivered_at IS NULL`,
        [seqs, now],
      );
    },
    async markFailed(seq, error, nextAttemptAt) {
      await pool.query(
        `UPDATE sink_outbox
            SET attempts = attempts + 1, last_error = $2, next_attempt_at = $3,
                locked_until = NULL
          WHERE seq = $1 AND delivered_at IS NULL`,
        [seq, boundedError(error), nextAttemptAt],
      );
    },
    async stats() {
      const { rows } = await pool.query<SinkOutboxStatsColumns>(STATS);
      return toOutboxStats(rows[0]);
    },
    async list({ limit, state }) {
      const { rows } = await pool.query<SinkOutboxColumns>(LISTS[state ?? 'all'], [limit]);
      return rows.map(toOutboxRow);
    },
    async pruneDelivered(before, limit) {
      const { rowCount } = await pool.query(PRUNE_DELIVERED, [before, limit]);
      return rowCount ?? 0;
    },
  };
}
