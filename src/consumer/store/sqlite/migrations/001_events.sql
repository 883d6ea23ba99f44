-- The inbox: one row per webhook event, keyed by the service's eventId (the dedupe key).
CREATE TABLE events (
  event_id        TEXT    PRIMARY KEY,
  action          TEXT    NOT NULL,
  transfer        TEXT    NOT NULL CHECK (transfer IN ('inbound', 'outbound')),
  message_id      TEXT    NOT NULL,
  party           TEXT    NOT NULL,
  occurred_at     TEXT    NOT NULL,
  test            INTEGER NOT NULL CHECK (test IN (0, 1)),
  flag            TEXT    CHECK (flag IN ('test', 'unknown_action')),
  body            BLOB    NOT NULL,
  received_at     INTEGER NOT NULL,
  state           TEXT    NOT NULL DEFAULT 'pending'
                  CHECK (state IN ('pending', 'processing', 'done', 'skipped', 'dead')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  locked_until    INTEGER,
  last_error      TEXT,
  updated_at      INTEGER NOT NULL
) STRICT;

-- The worker's claim query: due pending rows, oldest first.
CREATE INDEX events_due ON events (state, next_attempt_at);
-- One message's events are never handled at once; the claim looks them up by message.
CREATE INDEX events_message ON events (message_id, state);
-- The admin listing, newest first.
CREATE INDEX events_received ON events (received_at DESC);

-- Written by the readiness probe to prove the database accepts writes.
CREATE TABLE health (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  checked_at INTEGER NOT NULL
) STRICT;
INSERT INTO health (id, checked_at) VALUES (1, 0);
