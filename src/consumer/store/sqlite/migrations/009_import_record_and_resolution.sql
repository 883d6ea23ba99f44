-- What an operator needs to see of an import, and dead events closed by an acknowledgement.

-- import() calls started for a side, and the last transient error of one (its causes
-- included; cleared when an import succeeds). A side whose import started before this
-- migration had at least one call: it counts 1 (an UPDATE of the imported sides, once).
ALTER TABLE messages ADD COLUMN import_attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN import_error    TEXT;
UPDATE messages SET import_attempts = 1 WHERE import_started_at IS NOT NULL;

-- Why a dead event left `dead` for `done` without being handled again: another handler
-- (reconciliation, the worker with another event, a replay) acknowledged its message. Its
-- last_error is kept.
ALTER TABLE events ADD COLUMN resolution TEXT;

-- The dead events of one message, for closing them (queries.ts, EVENT_SQL.closeDead). Partial:
-- it holds dead events only, so storing and settling the others never writes to it, and it is
-- as small as the dead-letter list.
CREATE INDEX events_dead ON events (message_id) WHERE state = 'dead';
