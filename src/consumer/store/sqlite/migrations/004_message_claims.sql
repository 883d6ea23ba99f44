-- One message, one handler (see the header of src/consumer/store/store.ts): whoever handles a
-- message (the worker for an event, reconciliation, a status refresh) holds its claim, a lease
-- renewed while the work runs. The token changes at every acquisition; writes made for a claim
-- name it, so a holder that lost its claim can no longer settle anything.
CREATE TABLE message_claims (
  message_id  TEXT    PRIMARY KEY,
  holder      TEXT    NOT NULL,
  token       TEXT    NOT NULL,
  lease_until INTEGER NOT NULL,
  acquired_at INTEGER NOT NULL
) STRICT;

CREATE INDEX message_claims_holder ON message_claims (holder);

-- The claim a processing event was taken with; its lease is the claim's.
ALTER TABLE events ADD COLUMN claim_token TEXT;

-- Set when an import starts; with imported_at still null, an import may have half-happened
-- (a crash, a deadline), which the importer is told.
ALTER TABLE messages ADD COLUMN import_started_at INTEGER;
