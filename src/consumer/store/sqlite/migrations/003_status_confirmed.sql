-- Whether each status value was confirmed by the service (fetched with GET /messages/:mid) and
-- so reflects every change up to its *_at: status events of that millisecond or older can no
-- longer replace it (see src/consumer/worker/status-order.ts).
ALTER TABLE messages ADD COLUMN delivery_confirmed       INTEGER NOT NULL DEFAULT 0
  CHECK (delivery_confirmed IN (0, 1));
ALTER TABLE messages ADD COLUMN tax_reporting_confirmed  INTEGER NOT NULL DEFAULT 0
  CHECK (tax_reporting_confirmed IN (0, 1));
ALTER TABLE messages ADD COLUMN lifecycle_confirmed      INTEGER NOT NULL DEFAULT 0
  CHECK (lifecycle_confirmed IN (0, 1));

-- The same-millisecond rule reads the transitions of one kind at one occurredAt.
CREATE INDEX status_changes_tie ON status_changes (message_id, transfer, kind, occurred_at);
