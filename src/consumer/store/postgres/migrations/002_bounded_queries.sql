-- Queries whose cost does not grow with history (see the query-plan test).

-- The admin listing by state, newest first, without a sort.
CREATE INDEX events_state_received ON events (state, received_at DESC, seq DESC);

-- Reconciliation's stale scan: only messages still open, not a year of delivered ones.
DROP INDEX messages_stale;
CREATE INDEX messages_open ON messages (last_event_at)
  WHERE delivery_status IS NULL OR delivery_status NOT IN ('delivered', 'failed', 'parked');
