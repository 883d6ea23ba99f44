-- Queries whose cost does not grow with history (see queries.ts and the query-plan test).

-- The admin listing, newest first: an ascending index walked backwards gives received_at and
-- rowid both descending, with no sort; and one per state for the listing by state.
DROP INDEX events_received;
CREATE INDEX events_received ON events (received_at);
CREATE INDEX events_state_received ON events (state, received_at);

-- Reconciliation's stale scan: only messages still open, not a year of delivered ones.
DROP INDEX messages_stale;
CREATE INDEX messages_open ON messages (last_event_at)
  WHERE delivery_status IS NULL OR delivery_status NOT IN ('delivered', 'failed', 'parked');
