-- The consumer's schema on PostgreSQL: the same tables and rules as the SQLite store (its
-- migrations 001-005 together). Times are milliseconds since the epoch, as bigint.

-- The inbox: one row per webhook event, keyed by the service's eventId (the dedupe key).
CREATE TABLE events (
  event_id        text    PRIMARY KEY,
  action          text    NOT NULL,
  transfer        text    NOT NULL CHECK (transfer IN ('inbound', 'outbound')),
  message_id      text    NOT NULL,
  party           text    NOT NULL,
  occurred_at     text    NOT NULL,
  test            boolean NOT NULL,
  flag            text    CHECK (flag IN ('test', 'unknown_action')),
  body            bytea   NOT NULL,
  received_at     bigint  NOT NULL,
  state           text    NOT NULL DEFAULT 'pending'
                  CHECK (state IN ('pending', 'processing', 'done', 'skipped', 'dead')),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at bigint  NOT NULL,
  locked_until    bigint,
  claim_token     text,
  last_error      text,
  updated_at      bigint  NOT NULL,
  -- Arrival order among events of the same millisecond (SQLite's rowid).
  seq             bigserial NOT NULL
);

-- The worker's claim: due events in due order; also the events left in processing.
CREATE INDEX events_due ON events (state, next_attempt_at);
-- The admin listing, newest first.
CREATE INDEX events_received ON events (received_at DESC, seq DESC);

-- Written by the readiness probe to prove the database accepts writes.
CREATE TABLE health (
  id         integer PRIMARY KEY CHECK (id = 1),
  checked_at bigint  NOT NULL
);
INSERT INTO health (id, checked_at) VALUES (1, 0);

-- The consumer's own view of each message, once per transfer (see the SQLite migrations).
CREATE TABLE messages (
  message_id              text    NOT NULL,
  transfer                text    NOT NULL CHECK (transfer IN ('inbound', 'outbound')),
  document_no             text,
  business_action         text,
  validation_status       text,
  delivery_status         text,
  delivery_at             bigint,
  delivery_confirmed      boolean NOT NULL DEFAULT false,
  tax_reporting_status    text,
  tax_reporting_at        bigint,
  tax_reporting_confirmed boolean NOT NULL DEFAULT false,
  lifecycle_status        text,
  lifecycle_at            bigint,
  lifecycle_confirmed     boolean NOT NULL DEFAULT false,
  import_started_at       bigint,
  imported_at             bigint,
  import_location         text,
  acknowledged_at         bigint,
  acknowledgement         text    CHECK (acknowledgement IN ('delivered', 'failed')),
  failure_reason          text,
  last_event_at           bigint  NOT NULL,
  created_at              bigint  NOT NULL,
  updated_at              bigint  NOT NULL,
  PRIMARY KEY (message_id, transfer)
);

CREATE INDEX messages_stale ON messages (last_event_at);

-- Every status event as received, applied or not.
CREATE TABLE status_changes (
  event_id           text    PRIMARY KEY,
  message_id         text    NOT NULL,
  transfer           text    NOT NULL,
  kind               text    NOT NULL CHECK (kind IN ('delivery', 'taxReporting', 'lifecycle')),
  former_value       text    NOT NULL,
  new_value          text    NOT NULL,
  occurred_at        bigint  NOT NULL,
  properties         jsonb,
  validation_results jsonb,
  outcome            text    NOT NULL CHECK (outcome IN ('applied', 'stale', 'refreshed')),
  recorded_at        bigint  NOT NULL
);

CREATE INDEX status_changes_message ON status_changes (message_id, transfer, occurred_at);
CREATE INDEX status_changes_tie ON status_changes (message_id, transfer, kind, occurred_at);

-- One message, one handler (see src/consumer/store/store.ts).
CREATE TABLE message_claims (
  message_id  text   PRIMARY KEY,
  holder      text   NOT NULL,
  token       text   NOT NULL,
  lease_until bigint NOT NULL,
  acquired_at bigint NOT NULL
);

CREATE INDEX message_claims_holder ON message_claims (holder);
