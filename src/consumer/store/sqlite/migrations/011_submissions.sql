-- Submissions that go out once (src/consumer/submit, docs/submissions.md): an invoice the ERP
-- sends through the consumer is stored here first, keyed by its invoice number, and submitted
-- from here. An attempt is recorded (state sending) before its request leaves, so after a crash
-- or a lost reply the consumer looks the invoice up on the service before it submits again.
CREATE TABLE submissions (
  -- invoice.invoiceNo of the body: the ERP's key, one submission per invoice number.
  invoice_no       TEXT    PRIMARY KEY,
  -- The submit-invoice body as the ERP sent it (JSON), emptied once the invoice is settled
  -- (the ERP keeps its invoice; a settled row stays a few hundred bytes), and its SHA-256,
  -- kept: the same number sent again with another body is refused.
  body             TEXT    NOT NULL,
  body_hash        TEXT    NOT NULL,
  -- queued: no attempt yet, or the last one surely never reached the service;
  -- sending: an attempt started (its request may be out);
  -- unknown: an attempt's reply was lost, the service may have acted on it;
  -- submitted: message_id is the service's message; refused: the service answered with a 4xx.
  state            TEXT    NOT NULL
                   CHECK (state IN ('queued', 'sending', 'unknown', 'submitted', 'refused')),
  message_id       TEXT,
  -- How message_id was learned: the submit's reply, GET /messages, or the created webhook.
  resolved_by      TEXT    CHECK (resolved_by IN ('reply', 'lookup', 'created')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  -- When the first attempt started: a message created before it cannot be this invoice's.
  first_attempt_at INTEGER,
  next_attempt_at  INTEGER NOT NULL,
  -- Handed to a submitter until then (another process leaves it alone meanwhile).
  locked_until     INTEGER,
  -- Why the last attempt failed, or the service's refusal.
  last_error       TEXT,
  created_at       INTEGER NOT NULL,
  settled_at       INTEGER
) STRICT;

-- The open submissions by when each is due: what a submitter claims; as small as the backlog.
CREATE INDEX submissions_due ON submissions (next_attempt_at)
  WHERE state IN ('queued', 'sending', 'unknown');
-- Newest first, all or by state: the admin view.
CREATE INDEX submissions_recent ON submissions (created_at);
CREATE INDEX submissions_state ON submissions (state, created_at);
-- Settled invoices in the order they settled: what retention deletes, oldest first (after
-- RETENTION_MESSAGE_DAYS; until then a repeat of the number is answered with its message).
CREATE INDEX submissions_settled ON submissions (settled_at) WHERE settled_at IS NOT NULL;

-- The sink outbox takes the submissions' outcomes too (kind submission, its stream the
-- invoice): SQLite changes a CHECK only by copying the table.
CREATE TABLE sink_outbox_011 (
  seq             INTEGER PRIMARY KEY AUTOINCREMENT,
  notice_id       TEXT    NOT NULL UNIQUE,
  -- A status change's message id; a submission's `invoice:<invoiceNo>`.
  message_id      TEXT    NOT NULL,
  transfer        TEXT    NOT NULL CHECK (transfer IN ('inbound', 'outbound')),
  kind            TEXT    NOT NULL
                  CHECK (kind IN ('delivery', 'taxReporting', 'lifecycle', 'submission')),
  notice          TEXT    NOT NULL,
  created_at      INTEGER NOT NULL,
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  locked_until    INTEGER,
  delivered_at    INTEGER,
  last_error      TEXT
) STRICT;
INSERT INTO sink_outbox_011 SELECT * FROM sink_outbox;
DROP TABLE sink_outbox;
ALTER TABLE sink_outbox_011 RENAME TO sink_outbox;
CREATE INDEX sink_outbox_stream ON sink_outbox (message_id, transfer, kind, seq)
  WHERE delivered_at IS NULL;
CREATE INDEX sink_outbox_pending ON sink_outbox (seq, next_attempt_at)
  WHERE delivered_at IS NULL;
CREATE INDEX sink_outbox_delivered ON sink_outbox (delivered_at)
  WHERE delivered_at IS NOT NULL;
