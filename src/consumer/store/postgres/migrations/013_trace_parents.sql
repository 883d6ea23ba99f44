-- The same change as SQLite's migration 013: the trace each queued row belongs to, a W3C
-- traceparent (NULL when tracing was off when the row was written).
ALTER TABLE sink_outbox ADD COLUMN trace_parent text;
ALTER TABLE submissions ADD COLUMN trace_parent text;
