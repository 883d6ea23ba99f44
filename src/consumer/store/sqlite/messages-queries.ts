/**
 * The statements of the consumer's view of each message on SQLite, by name (sqlite-messages.ts
 * prepares them; the query-plan test EXPLAINs each one). Each write to a side is one statement:
 * several for one row, as each of these once was (create it if needed, then update it), cost
 * the writer a statement each.
 */
import type { StatusKind } from '../../../protocol/index.ts';
import { STATUS_COLUMNS } from '../status-columns.ts';

/** Delivery statuses after which a message changes only by a manual retry (docs/statuses.md#final-statuses). */
const OPEN_MESSAGE =
  "(delivery_status IS NULL OR delivery_status NOT IN ('delivered', 'failed', 'parked'))";

/** A new side with `columns` set to `values`, or the side there changed by `update`. */
const upsertSide = (columns: string[], values: string[], update: string) => `
    INSERT INTO messages (message_id, transfer, ${columns.join(', ')},
                          last_event_at, created_at, updated_at)
    VALUES (@messageId, @transfer, ${values.join(', ')}, @now, @now, @now)
    ON CONFLICT (message_id, transfer) DO UPDATE SET ${update}`;

const KINDS = Object.entries(STATUS_COLUMNS) as [StatusKind, (typeof STATUS_COLUMNS)[StatusKind]][];

export const MESSAGE_SQL = {
  // What a status write compares with (replacesStatus in ../messages.ts), read in the writer's
  // transaction: it holds the write lock from its BEGIN to its COMMIT, so the row cannot change
  // between this read and the write that follows.
  statusTimes: `
    SELECT ${KINDS.map(([, c]) => `${c.at}, ${c.confirmed}`).join(', ')}
      FROM messages WHERE message_id = ? AND transfer = ?`,
  // Everything news about a side writes, in one statement: the side created if needed, its
  // descriptor fields kept (a null leaves a field as it is), each status kind whose
  // @<kind>Store is 1 set (the caller decided from statusTimes), and last_event_at moved.
  // last_event_at moves with news about the message (an event, a fresh descriptor), not with
  // the consumer's own import and acknowledgement, so reconciliation can find silent ones.
  writeSide: upsertSide(
    [
      'document_no',
      'business_action',
      'validation_status',
      ...KINDS.flatMap(([, c]) => [c.value, c.at, c.confirmed]),
    ],
    [
      '@documentNo',
      '@businessAction',
      '@validationStatus',
      ...KINDS.flatMap(([kind]) => [`@${kind}Value`, `@${kind}At`, `@${kind}Confirmed`]),
    ],
    [
      'document_no = COALESCE(@documentNo, document_no)',
      'business_action = COALESCE(@businessAction, business_action)',
      'validation_status = COALESCE(@validationStatus, validation_status)',
      ...KINDS.flatMap(([kind, c]) =>
        [
          [c.value, `@${kind}Value`],
          [c.at, `@${kind}At`],
          [c.confirmed, `@${kind}Confirmed`],
        ].map(([column, value]) => `${column} = IIF(@${kind}Store = 1, ${value}, ${column})`),
      ),
      'last_event_at = @now',
      'updated_at = @now',
    ].join(',\n           '),
  ),
  insertChange: `
    INSERT INTO status_changes (event_id, message_id, transfer, kind, former_value, new_value,
                                occurred_at, properties, validation_results, outcome, recorded_at)
    VALUES (@eventId, @messageId, @transfer, @kind, @formerValue, @newValue, @occurredAt,
            @properties, @validationResults, @outcome, @now)
    ON CONFLICT (event_id) DO NOTHING`,
  // The import and acknowledgement records, each one statement that creates the side if
  // needed (the worker may record an import before any event made the row).
  importStarted: upsertSide(
    ['import_started_at', 'import_attempts'],
    ['@now', '1'],
    `import_started_at = COALESCE(import_started_at, @now),
         import_attempts = import_attempts + 1, updated_at = @now`,
  ),
  // Never on a side whose import is recorded: a late failure report (a holder that lost its
  // claim while its import() ran on) must not stand beside a successful import.
  importFailed: upsertSide(
    ['import_error'],
    ['@error'],
    'import_error = @error, updated_at = @now WHERE messages.imported_at IS NULL',
  ),
  imported: upsertSide(
    ['imported_at', 'import_location'],
    ['@now', '@location'],
    `imported_at = COALESCE(imported_at, @now), import_location = @location,
         import_error = NULL, updated_at = @now`,
  ),
  acknowledged: upsertSide(
    ['acknowledged_at', 'acknowledgement', 'failure_reason'],
    ['@now', '@acknowledgement', '@reason'],
    `acknowledged_at = @now, acknowledgement = @acknowledgement, failure_reason = @reason,
         updated_at = @now`,
  ),
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
