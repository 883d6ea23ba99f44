-- The context of the webhook request span that stored each event, as a W3C traceparent
-- (src/consumer/tracing/trace-parent.ts), so the worker's spans for the event join the
-- request's trace however much later, and in whichever process, the event is handled
-- (docs/operating.md#tracing). NULL when tracing was off at the insert, and for every event
-- stored before this migration: the worker then starts a new trace for the event.
ALTER TABLE events ADD COLUMN trace_parent TEXT;
