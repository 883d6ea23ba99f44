-- Retention (see src/consumer/retention/README.md).

-- The dedupe record of events whose rows retention deleted: their eventIds alone, kept as long
-- as the service could still redeliver them, so a redelivery is answered 204 as a duplicate.
CREATE TABLE seen_events (
  event_id    text   PRIMARY KEY,
  received_at bigint NOT NULL
);
CREATE INDEX seen_events_received ON seen_events (received_at);

-- How far a retention pass that walks forward in time has got (dropping bodies).
CREATE TABLE retention_marks (
  name       text   PRIMARY KEY,
  through_at bigint NOT NULL,
  through_id bigint NOT NULL
);

-- Final messages in the order they went quiet: what message retention deletes, oldest first.
CREATE INDEX messages_closed ON messages (last_event_at)
  WHERE delivery_status IN ('delivered', 'failed', 'parked');
