/** The submission outbox on SQLite (see migrations/011_submissions.sql). */
import type Database from 'better-sqlite3';
import { boundedError } from '../sink-outbox.ts';
import { submissionNotice } from '../status-notice.ts';
import {
  type SubmissionColumns,
  type SubmissionStatsColumns,
  type SubmissionStore,
  toSubmission,
  toSubmissionStats,
} from '../submissions.ts';
import { noticeEnqueuer } from './sqlite-sink-outbox.ts';
import { SUBMISSION_SQL } from './submissions-queries.ts';
import type { Synchronous, SynchronousTraced } from './synchronous.ts';

/**
 * Submission writes, for the writer thread; each call runs atomically there. Those that store
 * a trace context (the submission's, a settling notice's) take the caller's traceparent last.
 */
export function submissionWrites(
  db: Database.Database,
): SynchronousTraced<
  Omit<SubmissionStore, 'get' | 'list' | 'stats'>,
  'add' | 'markSubmitted' | 'markRefused' | 'linkCreated'
> {
  const add = db.prepare(SUBMISSION_SQL.add);
  const get = db.prepare<[string], SubmissionColumns>(SUBMISSION_SQL.get);
  const due = db.prepare<{ now: number; limit: number }, SubmissionColumns>(SUBMISSION_SQL.due);
  const lease = db.prepare(SUBMISSION_SQL.lease);
  const sending = db.prepare(SUBMISSION_SQL.sending);
  const submitted = db.prepare(SUBMISSION_SQL.submitted);
  const created = db.prepare(SUBMISSION_SQL.created);
  const refused = db.prepare(SUBMISSION_SQL.refused);
  const retry = db.prepare(SUBMISSION_SQL.retry);
  const enqueueNotice = noticeEnqueuer(db);
  return {
    add(submission, now, traceParent) {
      const added = add.run({ ...submission, now, traceParent }).changes === 1;
      const row = get.get(submission.invoiceNo);
      if (row === undefined) throw new Error(`submission ${submission.invoiceNo} vanished`);
      return { added, submission: toSubmission(row) };
    },
    // Selected and leased in one writer transaction, so no two submitters hold one invoice.
    claimDue(now, limit, leaseMs) {
      const rows = due.all({ now, limit });
      for (const row of rows) lease.run({ invoiceNo: row.invoice_no, lockedUntil: now + leaseMs });
      return rows.map(toSubmission);
    },
    markSending(invoiceNo, now) {
      return sending.run({ invoiceNo, now }).changes === 1;
    },
    markSubmitted(invoiceNo, messageId, resolvedBy, now, traceParent) {
      if (submitted.run({ invoiceNo, messageId, resolvedBy, now }).changes !== 1) return false;
      enqueueNotice(submissionNotice(invoiceNo, { messageId, resolvedBy }, now), now, traceParent);
      return true;
    },
    markRefused(invoiceNo, reason, now, traceParent) {
      const bounded = boundedError(reason);
      if (refused.run({ invoiceNo, reason: bounded, now }).changes !== 1) return false;
      enqueueNotice(submissionNotice(invoiceNo, { reason: bounded }, now), now, traceParent);
      return true;
    },
    markRetry(invoiceNo, state, error, nextAttemptAt) {
      retry.run({ invoiceNo, state, error: boundedError(error), nextAttemptAt });
    },
    linkCreated(documentNo, messageId, timeReceived, slackMs, now, traceParent) {
      const changed = created.run({ invoiceNo: documentNo, messageId, timeReceived, slackMs, now });
      if (changed.changes !== 1) return false;
      const notice = submissionNotice(documentNo, { messageId, resolvedBy: 'created' }, now);
      enqueueNotice(notice, now, traceParent);
      return true;
    },
  };
}

/** Submission reads, for the main thread. */
export function submissionReads(
  db: Database.Database,
): Synchronous<Pick<SubmissionStore, 'get' | 'list' | 'stats'>> {
  const get = db.prepare<[string], SubmissionColumns>(SUBMISSION_SQL.get);
  const stats = db.prepare<[], SubmissionStatsColumns>(SUBMISSION_SQL.stats);
  const listAll = db.prepare<[number], SubmissionColumns>(SUBMISSION_SQL.listAll);
  const listState = db.prepare<[string, number], SubmissionColumns>(SUBMISSION_SQL.listState);
  return {
    get(invoiceNo) {
      const row = get.get(invoiceNo);
      return row === undefined ? undefined : toSubmission(row);
    },
    stats() {
      return toSubmissionStats(stats.get());
    },
    list(options) {
      const rows =
        options.state === undefined
          ? listAll.all(options.limit)
          : listState.all(options.state, options.limit);
      return rows.map(toSubmission);
    },
  };
}
