-- The same change as SQLite's migration 010: the status sink's outbox (src/consumer/sink).
-- Each status change the consumer stores is queued here in the same transaction, and
-- delivered to the sink once, in order per stream (one message side and status kind).
-- Delivered notices stay for RETENTION_EVENT_DAYS, like the status changes; undelivered ones
-- are never deleted.
CREATE TABLE sink_outbox (
  -- Queue order: a later notice of the same stream has a higher seq (a stream's notices are
  -- written one after the other, each after its status update locked the message's row).
  seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- StatusNotice.id, the sink's idempotency key: a notice is queued once.
  notice_id       text   NOT NULL UNIQUE,
  message_id      text   NOT NULL,
  transfer        text   NOT NULL CHECK (transfer IN ('inbound', 'outbound')),
  kind            text   NOT NULL CHECK (kind IN ('delivery', 'taxReporting', 'lifecycle')),
  -- The whole StatusNotice.
  notice          jsonb  NOT NULL,
  created_at      bigint NOT NULL,
  -- Failed deliveries so far, and when the next may start.
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at bigint NOT NULL,
  -- Handed out to a delivery until then (another replica leaves it alone meanwhile).
  locked_until    bigint,
  delivered_at    bigint,
  last_error      text
);

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
