/**
 * The consumer's per-message view on PostgreSQL: the same rules as the SQLite store
 * (sqlite-messages.ts), each operation atomic (one statement, or one transaction).
 */
import type pg from 'pg';
import type { StatusKind } from '../../../protocol/index.ts';
import { activeTraceParent } from '../../tracing/trace-parent.ts';
import {
  asJson,
  type MessageColumns,
  type MessageKey,
  type MessageStore,
  type StatusChangeColumns,
  type StatusWrite,
  snapshotWrites,
  type TransitionColumns,
  toMessageRecord,
  toStatusChange,
  toTransition,
} from '../messages.ts';
import { STATUS_COLUMNS, STATUS_KINDS } from '../status-columns.ts';
import { queueNotice } from './pg-sink-outbox.ts';
import { inTransaction } from './pool.ts';

const GET = 'SELECT * FROM messages WHERE message_id = $1 AND transfer = $2';
const SIDES = 'SELECT * FROM messages WHERE message_id = $1 ORDER BY transfer';

// last_event_at moves with news about the message (an event, a fresh descriptor), not with the
// consumer's own import and acknowledgement, so reconciliation can find silent ones.
const TOUCH = `
  INSERT INTO messages (message_id, transfer, last_event_at, created_at, updated_at)
  VALUES ($1, $2, $3, $3, $3)
  ON CONFLICT (message_id, transfer) DO UPDATE SET last_event_at = $3, updated_at = $3`;
const ENSURE = `
  INSERT INTO messages (message_id, transfer, last_event_at, created_at, updated_at)
  VALUES ($1, $2, $3, $3, $3)
  ON CONFLICT (message_id, transfer) DO NOTHING`;
const KEEP_FIELDS = `
  UPDATE messages
     SET document_no = COALESCE($3, document_no),
         business_action = COALESCE($4, business_action),
         validation_status = COALESCE($5, validation_status)
   WHERE message_id = $1 AND transfer = $2`;

// What a value may replace, by its source (StatusSource in ../messages.ts), in one statement so
// a concurrent writer can never move a status backwards ($6: fetched, $7: a change).
const APPLY = Object.fromEntries(
  STATUS_KINDS.map((kind) => {
    const { value, at, confirmed } = STATUS_COLUMNS[kind];
    return [
      kind,
      `UPDATE messages SET ${value} = $3, ${at} = $4, ${confirmed} = $6, updated_at = $5
        WHERE message_id = $1 AND transfer = $2
          AND (${at} IS NULL OR ${at} < $4
               OR (${at} = $4 AND ($6 OR ($7 AND NOT ${confirmed}))))`,
    ];
  }),
) as Record<StatusKind, string>;

const INSERT_CHANGE = `
  INSERT INTO status_changes (event_id, message_id, transfer, kind, former_value, new_value,
                              occurred_at, properties, validation_results, outcome,
                              recorded_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
  ON CONFLICT (event_id) DO NOTHING`;
const CHANGES =
  'SELECT * FROM status_changes WHERE message_id = $1 AND transfer = $2 ORDER BY occurred_at';
const TRANSITIONS = `
  SELECT event_id, former_value, new_value FROM status_changes
   WHERE message_id = $1 AND transfer = $2 AND kind = $3 AND occurred_at = $4`;

// The import and acknowledgement records: $1, $2 the side, $3 now, then each one's values.
const IMPORT_STARTED = `
  UPDATE messages SET import_started_at = COALESCE(import_started_at, $3),
                      import_attempts = import_attempts + 1, updated_at = $3
   WHERE message_id = $1 AND transfer = $2`;
// Never on a side whose import is recorded: a late failure report (a holder that lost its
// claim while its import() ran on) must not stand beside a successful import.
const IMPORT_FAILED = `
  UPDATE messages SET import_error = $4, updated_at = $3
   WHERE message_id = $1 AND transfer = $2 AND imported_at IS NULL`;
const IMPORTED = `
  UPDATE messages SET imported_at = COALESCE(imported_at, $3), import_location = $4,
                      import_error = NULL, updated_at = $3
   WHERE message_id = $1 AND transfer = $2`;
const ACKNOWLEDGED = `
  UPDATE messages SET acknowledged_at = $3, acknowledgement = $4, failure_reason = $5,
                      updated_at = $3
   WHERE message_id = $1 AND transfer = $2`;

// Only messages still open: the partial index messages_open holds no final message.
const STALE = `
  SELECT * FROM messages
   WHERE last_event_at < $1
     AND (delivery_status IS NULL OR delivery_status NOT IN ('delivered', 'failed', 'parked'))
   ORDER BY last_event_at LIMIT $2`;

/**
 * Stores a value if its source allows, and its notice only then (with `traceParent`, the
 * caller's context), in `client`'s transaction.
 */
async function writeStatus(
  client: pg.PoolClient,
  key: MessageKey,
  write: StatusWrite,
  now: number,
  traceParent: string | null,
): Promise<boolean> {
  const { rowCount } = await client.query(APPLY[write.kind], [
    key.messageId,
    key.transfer,
    write.value,
    write.at,
    now,
    write.source === 'fetch',
    write.source === 'change',
  ]);
  const stored = rowCount === 1;
  if (stored && write.notice !== undefined) {
    await queueNotice(client, write.notice, now, traceParent);
  }
  return stored;
}

export function createPostgresMessageStore(pool: pg.Pool): MessageStore {
  // A record of the side, created first if the side has none yet, in one transaction.
  const upsertThen = (sql: string, key: MessageKey, now: number, values: unknown[]) =>
    inTransaction(pool, async (client) => {
      await client.query(ENSURE, [key.messageId, key.transfer, now]);
      await client.query(sql, [key.messageId, key.transfer, now, ...values]);
    });

  return {
    async get({ messageId, transfer }) {
      const { rows } = await pool.query<MessageColumns>(GET, [messageId, transfer]);
      return rows[0] === undefined ? undefined : toMessageRecord(rows[0]);
    },
    async listSides(messageId) {
      const { rows } = await pool.query<MessageColumns>(SIDES, [messageId]);
      return rows.map(toMessageRecord);
    },
    async recordSnapshot(snapshot, now) {
      const { messageId, transfer } = snapshot;
      const traceParent = activeTraceParent();
      await inTransaction(pool, async (client) => {
        await client.query(TOUCH, [messageId, transfer, now]);
        await client.query(KEEP_FIELDS, [
          messageId,
          transfer,
          snapshot.documentNo ?? null,
          snapshot.businessAction ?? null,
          snapshot.validationStatus ?? null,
        ]);
        for (const write of snapshotWrites(snapshot)) {
          await writeStatus(client, { messageId, transfer }, write, now, traceParent);
        }
      });
    },
    async applyStatus(key, write, now) {
      const traceParent = activeTraceParent();
      return inTransaction(pool, async (client) => {
        await client.query(TOUCH, [key.messageId, key.transfer, now]);
        return writeStatus(client, key, write, now, traceParent);
      });
    },
    async recordStatusChange(change, now) {
      await pool.query(INSERT_CHANGE, [
        change.eventId,
        change.messageId,
        change.transfer,
        change.kind,
        change.formerValue,
        change.newValue,
        change.occurredAt,
        asJson(change.properties),
        asJson(change.validationResults),
        change.outcome,
        now,
      ]);
    },
    async statusChanges({ messageId, transfer }) {
      const { rows } = await pool.query<StatusChangeColumns>(CHANGES, [messageId, transfer]);
      return rows.map(toStatusChange);
    },
    async transitionsAt({ messageId, transfer }, kind, at) {
      const { rows } = await pool.query<TransitionColumns>(TRANSITIONS, [
        messageId,
        transfer,
        kind,
        at,
      ]);
      return rows.map(toTransition);
    },
    markImportStarted: (key, now) => upsertThen(IMPORT_STARTED, key, now, []),
    markImportFailed: (key, error, now) => upsertThen(IMPORT_FAILED, key, now, [error]),
    markImported: (key, location, now) => upsertThen(IMPORTED, key, now, [location]),
    markAcknowledged: (key, acknowledgement, reason, now) =>
      upsertThen(ACKNOWLEDGED, key, now, [acknowledgement, reason]),
    async listStale(before, limit) {
      const { rows } = await pool.query<MessageColumns>(STALE, [before, limit]);
      return rows.map(toMessageRecord);
    },
  };
}
