-- The consumer's own view of each message, once per transfer: a message a participant sends
-- to itself is tracked as two rows. Each status kind keeps its value and the occurredAt (ms)
-- of the change that set it, so older events arriving late are ignored (SPEC.md 6.3).
CREATE TABLE messages (
  message_id            TEXT    NOT NULL,
  transfer              TEXT    NOT NULL CHECK (transfer IN ('inbound', 'outbound')),
  document_no           TEXT,
  business_action       TEXT,
  validation_status     TEXT,
  delivery_status       TEXT,
  delivery_at           INTEGER,
  tax_reporting_status  TEXT,
  tax_reporting_at      INTEGER,
  lifecycle_status      TEXT,
  lifecycle_at          INTEGER,
  imported_at           INTEGER,
  import_location       TEXT,
  acknowledged_at       INTEGER,
  acknowledgement       TEXT    CHECK (acknowledgement IN ('delivered', 'failed')),
  failure_reason        TEXT,
  last_event_at         INTEGER NOT NULL,
  created_at            INTEGER NOT NULL,
  updated_at            INTEGER NOT NULL,
  PRIMARY KEY (message_id, transfer)
) STRICT;

CREATE INDEX messages_stale ON messages (last_event_at);

-- Every status event as received, applied or not, with its properties (unknown names kept)
-- and its validation findings parsed from their JSON string.
CREATE TABLE status_changes (
  event_id           TEXT    PRIMARY KEY,
  message_id         TEXT    NOT NULL,
  transfer           TEXT    NOT NULL,
  kind               TEXT    NOT NULL CHECK (kind IN ('delivery', 'taxReporting', 'lifecycle')),
  former_value       TEXT    NOT NULL,
  new_value          TEXT    NOT NULL,
  occurred_at        INTEGER NOT NULL,
  properties         TEXT,
  validation_results TEXT,
  outcome            TEXT    NOT NULL CHECK (outcome IN ('applied', 'stale', 'refreshed')),
  recorded_at        INTEGER NOT NULL
) STRICT;

CREATE INDEX status_changes_message ON status_changes (message_id, transfer, occurred_at);
