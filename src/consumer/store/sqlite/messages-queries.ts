/**
 * The statements of the consumer's view of each message on SQLite, by name (sqlite-messages.ts
 * prepares them; the query-plan test EXPLAINs each one, applyStatusSql for every kind).
 */
import type { StatusKind } from '../../../protocol/index.ts';
import { STATUS_COLUMNS } from '../status-columns.ts';

/** Delivery statuses after which a message changes only by a manual retry (docs/statuses.md#final-statuses). */
const OPEN_MESSAGE =
  "(delivery_status IS NULL OR delivery_status NOT IN ('delivered', 'failed', 'parked'))";

export const MESSAGE_SQL = {
  // last_event_at moves with news about the message (an event, a fresh descriptor), not with
  // the consumer's own import and acknowledgement, so reconciliation can find silent ones.
  touch: `
    INSERT INTO messages (message_id, transfer, last_event_at, created_at, updated_at)
    VALUES (@messageId, @transfer, @now, @now, @now)
    ON CONFLICT (message_id, transfer) DO UPDATE SET last_event_at = @now, updated_at = @now`,
  ensure: `
    INSERT INTO messages (message_id, transfer, last_event_at, created_at, updated_at)
    VALUES (@messageId, @transfer, @now, @now, @now)
    ON CONFLICT (message_id, transfer) DO NOTHING`,
  keepFields: `
    UPDATE messages
       SET document_no = COALESCE(@documentNo, document_no),
           business_action = COALESCE(@businessAction, business_action),
           validation_status = COALESCE(@validationStatus, validation_status)
     WHERE message_id = @messageId AND transfer = @transfer`,
  insertChange: `
    INSERT INTO status_changes (event_id, message_id, transfer, kind, former_value, new_value,
                                occurred_at, properties, validation_results, outcome, recorded_at)
    VALUES (@eventId, @messageId, @transfer, @kind, @formerValue, @newValue, @occurredAt,
            @properties, @validationResults, @outcome, @now)
    ON CONFLICT (event_id) DO NOTHING`,
  importStarted: `
    UPDATE messages SET import_started_at = COALESCE(import_started_at, @now),
                        import_attempts = import_attempts + 1, updated_at = @now
     WHERE message_id = @messageId AND transfer = @transfer`,
  // Never on a side whose import is recorded: a late failure report (a holder that lost its
  // claim while its import() ran on) must not stand beside a successful import.
  importFailed: `
    UPDATE messages SET import_error = @error, updated_at = @now
     WHERE message_id = @messageId AND transfer = @transfer AND imported_at IS NULL`,
  imported: `
    UPDATE messages SET imported_at = COALESCE(imported_at, @now), import_location = @location,
                        import_error = NULL, updated_at = @now
     WHERE message_id = @messageId AND transfer = @transfer`,
  acknowledged: `
    UPDATE messages SET acknowledged_at = @now, acknowledgement = @acknowledgement,
                        failure_reason = @reason, updated_at = @now
     WHERE message_id = @messageId AND transfer = @transfer`,
  get: 'SELECT * FROM messages WHERE message_id = ? AND transfer = ?',
  // Inbound first: the order of the primary key's second column.
  sides: 'SELECT * FROM messages WHERE message_id = ? ORDER BY transfer',
  changes:
    'SELECT * FROM status_changes WHERE message_id = ? AND transfer = ? ORDER BY occurred_at',
  transitions: `
    SELECT event_id, former_value, new_value FROM status_changes
     WHERE message_id = ? AND transfer = ? AND kind = ? AND occurred_at = ?`,
  // Only messages still open: the partial index messages_open holds no final message.
  stale: `
    SELECT * FROM messages
     WHERE last_event_at < ? AND ${OPEN_MESSAGE}
     ORDER BY last_event_at LIMIT ?`,
} as const;

/**
 * What a status value may replace, by its source (StatusSource in ../messages.ts), in one
 * statement so a concurrent writer can never move a status backwards.
 */
export function applyStatusSql(kind: StatusKind): string {
  const { value, at, confirmed } = STATUS_COLUMNS[kind];
  return `
    UPDATE messages SET ${value} = @value, ${at} = @at, ${confirmed} = @fetched,
                        updated_at = @now
     WHERE message_id = @messageId AND transfer = @transfer
       AND (${at} IS NULL OR ${at} < @at
            OR (${at} = @at AND (@fetched = 1 OR (@change = 1 AND ${confirmed} = 0))))`;
}
