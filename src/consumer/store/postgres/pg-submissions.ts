/**
 * The submission outbox on PostgreSQL (see migrations/011_submissions.sql): the same rules as
 * the SQLite store (sqlite-submissions.ts). Replicas claiming at once take different
 * submissions: the due ones are locked with FOR UPDATE SKIP LOCKED and leased in one statement.
 */
import type pg from 'pg';
import { activeTraceParent } from '../../tracing/trace-parent.ts';
import { boundedError } from '../sink-outbox.ts';
import { type StatusNotice, submissionNotice } from '../status-notice.ts';
import {
  type SubmissionColumns,
  type SubmissionStatsColumns,
  type SubmissionStore,
  toSubmission,
  toSubmissionStats,
} from '../submissions.ts';
import { queueNotice } from './pg-sink-outbox.ts';
import { inTransaction } from './pool.ts';

const OPEN = "state IN ('queued', 'sending', 'unknown')";

const ADD = `
  INSERT INTO submissions (invoice_no, body, body_hash, state, next_attempt_at, created_at,
                           trace_parent)
  VALUES ($1, $2, $3, 'queued', $4, $4, $5)
  ON CONFLICT (invoice_no) DO NOTHING RETURNING *`;
const GET = 'SELECT * FROM submissions WHERE invoice_no = $1';
const LIST_ALL = 'SELECT * FROM submissions ORDER BY created_at DESC LIMIT $1';
const LIST_STATE = 'SELECT * FROM submissions WHERE state = $1 ORDER BY created_at DESC LIMIT $2';
const STATS = `
  SELECT count(*) FILTER (WHERE state = 'queued')::int AS queued,
         count(*) FILTER (WHERE state = 'sending')::int AS sending,
         count(*) FILTER (WHERE state = 'unknown')::int AS unknown,
         min(created_at) AS oldest
    FROM submissions WHERE ${OPEN}`;

const CLAIM_DUE = `
  UPDATE submissions SET locked_until = $3
   WHERE invoice_no IN (
     SELECT invoice_no FROM submissions
      WHERE ${OPEN} AND next_attempt_at <= $1 AND (locked_until IS NULL OR locked_until < $1)
      ORDER BY next_attempt_at LIMIT $2
      FOR UPDATE SKIP LOCKED)
  RETURNING *`;

const SENDING = `
  UPDATE submissions
     SET state = 'sending', attempts = attempts + 1,
         first_attempt_at = COALESCE(first_attempt_at, $2)
   WHERE invoice_no = $1 AND ${OPEN}`;

const SUBMITTED = `
  UPDATE submissions
     SET state = 'submitted', message_id = $2, resolved_by = $3, settled_at = $4,
         locked_until = NULL, last_error = NULL, body = ''
   WHERE invoice_no = $1 AND ${OPEN}`;

const REFUSED = `
  UPDATE submissions
     SET state = 'refused', last_error = $2, settled_at = $3, locked_until = NULL,
         body = ''
   WHERE invoice_no = $1 AND ${OPEN}`;

const RETRY = `
  UPDATE submissions
     SET state = $2, last_error = $3, next_attempt_at = $4, locked_until = NULL
   WHERE invoice_no = $1 AND ${OPEN}`;

// Only after an attempt started no later than slack after the message's arrival ($4).
const CREATED = `
  UPDATE submissions
     SET state = 'submitted', message_id = $2, resolved_by = 'created', settled_at = $3,
         locked_until = NULL, last_error = NULL, body = ''
   WHERE invoice_no = $1 AND ${OPEN}
     AND first_attempt_at IS NOT NULL AND first_attempt_at <= $4`;

/** Settled invoices, oldest first (submissions_settled); never an open one. */
export const PRUNE_SETTLED = `
  DELETE FROM submissions WHERE invoice_no IN (
    SELECT invoice_no FROM submissions WHERE settled_at IS NOT NULL AND settled_at < $1
     ORDER BY settled_at LIMIT $2)`;

export function createPostgresSubmissionStore(pool: pg.Pool): SubmissionStore {
  /**
   * Settles with `sql` and queues its notice in the same transaction, with the caller's trace
   * context; false if nothing settled.
   */
  const settle = (sql: string, values: unknown[], notice: () => StatusNotice, now: number) => {
    const traceParent = activeTraceParent();
    return inTransaction(pool, async (client) => {
      const { rowCount } = await client.query(sql, values);
      if (rowCount !== 1) return false;
      await queueNotice(client, notice(), now, traceParent);
      return true;
    });
  };

  return {
    async add(submission, now) {
      const { invoiceNo, body, bodyHash } = submission;
      const inserted = await pool.query<SubmissionColumns>(ADD, [
        invoiceNo,
        body,
        bodyHash,
        now,
        activeTraceParent(),
      ]);
      const row =
        inserted.rows[0] ?? (await pool.query<SubmissionColumns>(GET, [invoiceNo])).rows[0];
      if (row === undefined) throw new Error(`submission ${invoiceNo} vanished`);
      return { added: inserted.rows.length === 1, submission: toSubmission(row) };
    },
    async get(invoiceNo) {
      const { rows } = await pool.query<SubmissionColumns>(GET, [invoiceNo]);
      return rows[0] === undefined ? undefined : toSubmission(rows[0]);
    },
    async list({ limit, state }) {
      const { rows } =
        state === undefined
          ? await pool.query<SubmissionColumns>(LIST_ALL, [limit])
          : await pool.query<SubmissionColumns>(LIST_STATE, [state, limit]);
      return rows.map(toSubmission);
    },
    async stats() {
      const { rows } = await pool.query<SubmissionStatsColumns>(STATS);
      return toSubmissionStats(rows[0]);
    },
    async claimDue(now, limit, leaseMs) {
      const { rows } = await pool.query<SubmissionColumns>(CLAIM_DUE, [now, limit, now + leaseMs]);
      // RETURNING follows no order.
      return rows.map(toSubmission).sort((a, b) => a.nextAttemptAt - b.nextAttemptAt);
    },
    async markSending(invoiceNo, now) {
      const { rowCount } = await pool.query(SENDING, [invoiceNo, now]);
      return rowCount === 1;
    },
    markSubmitted: (invoiceNo, messageId, resolvedBy, now) =>
      settle(
        SUBMITTED,
        [invoiceNo, messageId, resolvedBy, now],
        () => submissionNotice(invoiceNo, { messageId, resolvedBy }, now),
        now,
      ),
    markRefused(invoiceNo, reason, now) {
      const bounded = boundedError(reason);
      return settle(
        REFUSED,
        [invoiceNo, bounded, now],
        () => submissionNotice(invoiceNo, { reason: bounded }, now),
        now,
      );
    },
    async markRetry(invoiceNo, state, error, nextAttemptAt) {
      await pool.query(RETRY, [invoiceNo, state, boundedError(error), nextAttemptAt]);
    },
    linkCreated: (documentNo, messageId, timeReceived, slackMs, now) =>
      settle(
        CREATED,
        [documentNo, messageId, now, timeReceived + slackMs],
        () => submissionNotice(documentNo, { messageId, resolvedBy: 'created' }, now),
        now,
      ),
  };
}
