-- Claims moved to message_claims (004): no query looks events up by message any more, and the
-- index cost a write at a random page for every webhook stored.
DROP INDEX events_message;
