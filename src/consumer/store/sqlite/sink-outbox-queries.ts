/**
 * The status sink's outbox on SQLite, by name (sqlite-sink-outbox.ts prepares these; the
 * query-plan test EXPLAINs each one). A stream is one message side and kind; only its head
 * (lowest undelivered seq) is ever handed out. Undelivered notices are found through partial
 * indexes that hold the backlog only (migration 010), never history.
 */

export const SINK_OUTBOX_SQL = {
  // With the status write that stored the value, in its transaction; a notice id queued
  // already is not queued again.
  enqueue: `
    INSERT INTO sink_outbox (notice_id, message_id, transfer, kind, notice, created_at,
                             next_attempt_at, trace_parent)
    VALUES (@noticeId, @messageId, @transfer, @kind, @notice, @now, @now, @traceParent)
    ON CONFLICT (notice_id) DO NOTHING`,
  // Stream heads that are due and not leased, in queue order: the undelivered notices walked
  // through sink_outbox_pending (due read from the index), each non-head passed over after a
  // probe of sink_outbox_stream.
  due: `
    SELECT o.* FROM sink_outbox o
     WHERE o.delivered_at IS NULL AND o.next_attempt_at <= @now
       AND (o.locked_until IS NULL OR o.locked_until < @now)
       AND o.seq = (SELECT min(p.seq) FROM sink_outbox p
                     WHERE p.message_id = o.message_id AND p.transfer = o.transfer
                       AND p.kind = o.kind AND p.delivered_at IS NULL)
     ORDER BY o.seq LIMIT @limit`,
  lease: 'UPDATE sink_outbox SET locked_until = @lockedUntil WHERE seq = @seq',
  delivered: `
    UPDATE sink_outbox SET delivered_at = @now, locked_until = NULL
     WHERE seq = @seq AND delivered_at IS NULL`,
  failed: `
    UPDATE sink_outbox
       SET attempts = attempts + 1, last_error = @error, next_attempt_at = @nextAttemptAt,
           locked_until = NULL
     WHERE seq = @seq AND delivered_at IS NULL`,
  // The backlog only (sink_outbox_pending), not history.
  stats: `
    SELECT COUNT(*) AS pending, COALESCE(SUM(attempts > 0), 0) AS failing,
           MIN(created_at) AS oldest
      FROM sink_outbox WHERE delivered_at IS NULL`,
  // Newest first: the table in seq order walked backwards, cut off by LIMIT.
  listAll: 'SELECT * FROM sink_outbox ORDER BY seq DESC LIMIT ?',
  listPending: `
    SELECT * FROM sink_outbox WHERE delivered_at IS NULL ORDER BY seq DESC LIMIT ?`,
  listFailing: `
    SELECT * FROM sink_outbox WHERE delivered_at IS NULL AND attempts > 0
     ORDER BY seq DESC LIMIT ?`,
  // Delivered notices, oldest delivery first (sink_outbox_delivered); never an undelivered one.
  pruneDelivered: `
    DELETE FROM sink_outbox WHERE seq IN (
      SELECT seq FROM sink_outbox WHERE delivered_at IS NOT NULL AND delivered_at < ?
       ORDER BY delivered_at LIMIT ?)`,
} as const;
