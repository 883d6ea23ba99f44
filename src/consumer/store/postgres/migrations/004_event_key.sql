-- The dedupe key becomes (occurred_at, event_id), as on SQLite (its migration 008 says why):
-- a new event's key lands beside the last one's instead of on a random page of a year-sized
-- index. Lookups by eventId alone (the admin API) use events_settled for finished events and
-- events_due (the backlog) for open ones.
ALTER TABLE events DROP CONSTRAINT events_pkey;
ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (occurred_at, event_id);
CREATE INDEX events_settled ON events (event_id) WHERE state IN ('dead', 'done', 'skipped');
