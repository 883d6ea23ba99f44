/**
 * The submission outbox's statements on SQLite, by name (sqlite-submissions.ts prepares them;
 * the query-plan test EXPLAINs each one).
 */

/** The states a submitter works on, as SQL (submissions_due is partial on exactly these). */
const OPEN_SUBMISSION = "state IN ('queued', 'sending', 'unknown')";

export const SUBMISSION_SQL = {
  add: `
    INSERT INTO submissions (invoice_no, body, body_hash, state, next_attempt_at, created_at,
                             trace_parent)
    VALUES (@invoiceNo, @body, @bodyHash, 'queued', @now, @now, @traceParent)
    ON CONFLICT (invoice_no) DO NOTHING`,
  get: 'SELECT * FROM submissions WHERE invoice_no = ?',
  // Oldest due first, through the partial index of open submissions.
  due: `
    SELECT * FROM submissions
     WHERE ${OPEN_SUBMISSION} AND next_attempt_at <= @now
       AND (locked_until IS NULL OR locked_until < @now)
     ORDER BY next_attempt_at LIMIT @limit`,
  lease: 'UPDATE submissions SET locked_until = @lockedUntil WHERE invoice_no = @invoiceNo',
  sending: `
    UPDATE submissions
       SET state = 'sending', attempts = attempts + 1,
           first_attempt_at = COALESCE(first_attempt_at, @now)
     WHERE invoice_no = @invoiceNo AND ${OPEN_SUBMISSION}`,
  submitted: `
    UPDATE submissions
       SET state = 'submitted', message_id = @messageId, resolved_by = @resolvedBy,
           settled_at = @now, locked_until = NULL, last_error = NULL, body = ''
     WHERE invoice_no = @invoiceNo AND ${OPEN_SUBMISSION}`,
  // Only after an attempt started no later than slack after the message's arrival.
  created: `
    UPDATE submissions
       SET state = 'submitted', message_id = @messageId, resolved_by = 'created',
           settled_at = @now, locked_until = NULL, last_error = NULL, body = ''
     WHERE invoice_no = @invoiceNo AND ${OPEN_SUBMISSION}
       AND first_attempt_at IS NOT NULL AND first_attempt_at <= @timeReceived + @slackMs`,
  refused: `
    UPDATE submissions
       SET state = 'refused', last_error = @reason, settled_at = @now, locked_until = NULL,
           body = ''
     WHERE invoice_no = @invoiceNo AND ${OPEN_SUBMISSION}`,
  retry: `
    UPDATE submissions
       SET state = @state, last_error = @error, next_attempt_at = @nextAttemptAt,
           locked_until = NULL
     WHERE invoice_no = @invoiceNo AND ${OPEN_SUBMISSION}`,
  stats: `
    SELECT COALESCE(SUM(state = 'queued'), 0) AS queued,
           COALESCE(SUM(state = 'sending'), 0) AS sending,
           COALESCE(SUM(state = 'unknown'), 0) AS unknown,
           MIN(created_at) AS oldest
      FROM submissions INDEXED BY submissions_due WHERE ${OPEN_SUBMISSION}`,
  // Settled invoices, oldest first (submissions_settled); never an open one.
  pruneSettled: `
    DELETE FROM submissions WHERE invoice_no IN (
      SELECT invoice_no FROM submissions WHERE settled_at IS NOT NULL AND settled_at < ?
       ORDER BY settled_at LIMIT ?)`,
  listAll: 'SELECT * FROM submissions ORDER BY created_at DESC LIMIT ?',
  listState: 'SELECT * FROM submissions WHERE state = ? ORDER BY created_at DESC LIMIT ?',
} as const;
