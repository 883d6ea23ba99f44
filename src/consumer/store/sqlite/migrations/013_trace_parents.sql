-- The trace each queued row belongs to (docs/operating.md#tracing): a W3C traceparent, the
-- context active when the row was written, so the work done on it later (in this process or
-- another replica) joins that trace rather than starting one of its own. NULL when tracing was
-- off then; such a row's work starts a trace of its own. Never read to decide anything else.

-- A status notice: the handling of the event (or the submission's settling) that queued it;
-- its delivery to the sink is a span under that context.
ALTER TABLE sink_outbox ADD COLUMN trace_parent TEXT;

-- A submission: the admin request that stored it; its submits, lookups and settling are
-- spans under that context.
ALTER TABLE submissions ADD COLUMN trace_parent TEXT;
