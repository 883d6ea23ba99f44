-- The status sink's outbox (src/consumer/sink): each status change the consumer stores is
-- queued here in the same transaction, and delivered to the sink once, in order per stream
-- (one message side and status kind). Delivered notices stay for RETENTION_EVENT_DAYS, like
-- the status changes; undelivered ones are never deleted.
CREATE TABLE sink_outbox (
  -- Queue order: a later notice of the same stream has a higher seq (AUTOINCREMENT: never
  -- reused, even once retention has deleted the last row).
  seq             INTEGER PRIMARY KEY AUTOINCREMENT,
  -- StatusNotice.id, the sink's idempotency key: a notice is queued once.
  notice_id       TEXT    NOT NULL UNIQUE,
  message_id      TEXT    NOT NULL,
  transfer        TEXT    NOT NULL CHECK (transfer IN ('inbound', 'outbound')),
  kind            TEXT    NOT NULL CHECK (kind IN ('delivery', 'taxReporting', 'lifecycle')),
  -- The whole StatusNotice, as JSON.
  notice          TEXT    NOT NULL,
  created_at      INTEGER NOT NULL,
  -- Failed deliveries so far, and when the next may start.
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  -- Handed out to a delivery until then (another process leaves it alone meanwhile).
  locked_until    INTEGER,
  delivered_at    INTEGER,
  last_error      TEXT
) STRICT;

-- The head of each stream (its lowest undelivered seq): partial, so it is as small as the
-- backlog and delivering a notice takes it out.
CREATE INDEX sink_outbox_stream ON sink_outbox (message_id, transfer, kind, seq)
  WHERE delivered_at IS NULL;
-- The undelivered notices in queue order, with when each is due: what a delivery claims
-- (oldest first), counts and lists; as small as the backlog.
CREATE INDEX sink_outbox_pending ON sink_outbox (seq, next_attempt_at)
  WHERE delivered_at IS NULL;
-- Delivered notices in the order they were delivered: what retention deletes, oldest first.
CREATE INDEX sink_outbox_delivered ON sink_outbox (delivered_at)
  WHERE delivered_at IS NOT NULL;
