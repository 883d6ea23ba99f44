-- The dedupe key becomes (occurred_at, event_id): the service keeps both unchanged on retry
-- and redelivery (docs/events.md), so it finds every duplicate the eventId alone found, and a
-- new event's entry lands beside the last one instead of on a random page of a year-sized
-- index (a random eventId cost each insert some 80 KB of page writes with history; see
-- BENCHMARKS.md, "A year of history"). Lookups by eventId alone (the admin API) are served by events_settled, an
-- index of finished events the worker's settle writes, and for open events by events_due
-- (the backlog, not history).
--
-- SQLite cannot drop a primary key: the table is rebuilt, rowids kept (the admin listing's
-- cursors hold them). On a large file this takes a while, once, at the first start.
CREATE TABLE events_next (
  event_id        TEXT    NOT NULL,
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
  updated_at      INTEGER NOT NULL,
  claim_token     TEXT
) STRICT;

INSERT INTO events_next (rowid, event_id, action, transfer, message_id, party, occurred_at, test,
                         flag, body, received_at, state, attempts, next_attempt_at, locked_until,
                         last_error, updated_at, claim_token)
SELECT rowid, event_id, action, transfer, message_id, party, occurred_at, test, flag, body,
       received_at, state, attempts, next_attempt_at, locked_until, last_error, updated_at,
       claim_token
  FROM events;

DROP TABLE events;
ALTER TABLE events_next RENAME TO events;

CREATE UNIQUE INDEX events_key ON events (occurred_at, event_id);
CREATE INDEX events_settled ON events (event_id) WHERE state IN ('dead', 'done', 'skipped');
CREATE INDEX events_due ON events (state, next_attempt_at);
CREATE INDEX events_received ON events (received_at);
CREATE INDEX events_state_received ON events (state, received_at);
