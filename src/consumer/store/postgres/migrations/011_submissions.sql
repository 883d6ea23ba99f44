-- The same change as SQLite's migration 011: submissions that go out once
-- (src/consumer/submit, docs/submissions.md), and the sink outbox taking their outcomes.
CREATE TABLE submissions (
  invoice_no       text    PRIMARY KEY,
  body             text    NOT NULL,
  body_hash        text    NOT NULL,
  state            text    NOT NULL
                   CHECK (state IN ('queued', 'sending', 'unknown', 'submitted', 'refused')),
  message_id       text,
  resolved_by      text    CHECK (resolved_by IN ('reply', 'lookup', 'created')),
  attempts         integer NOT NULL DEFAULT 0,
  first_attempt_at bigint,
  next_attempt_at  bigint  NOT NULL,
  locked_until     bigint,
  last_error       text,
  created_at       bigint  NOT NULL,
  settled_at       bigint
);

CREATE INDEX submissions_due ON submissions (next_attempt_at)
  WHERE state IN ('queued', 'sending', 'unknown');
CREATE INDEX submissions_recent ON submissions (created_at);
CREATE INDEX submissions_state ON submissions (state, created_at);
CREATE INDEX submissions_settled ON submissions (settled_at) WHERE settled_at IS NOT NULL;

ALTER TABLE sink_outbox DROP CONSTRAINT sink_outbox_kind_check;
ALTER TABLE sink_outbox ADD CONSTRAINT sink_outbox_kind_check
  CHECK (kind IN ('delivery', 'taxReporting', 'lifecycle', 'submission'));
