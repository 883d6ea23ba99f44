/**
 * The consumer's per-message view on PostgreSQL: the same rules as the SQLite store
 * (sqlite-messages.ts), each operation atomic (one statement, or one transaction).
 */
import type pg from 'pg';
import type { StatusKind } from '../../../protocol/index.ts';
import type {
  Acknowledgement,
  MessageKey,
  MessageRecord,
  MessageStore,
  StatusChangeRecord,
  StatusWrite,
} from '../messages.ts';
import { STATUS_COLUMNS, STATUS_KINDS } from '../status-columns.ts';
import { queueNotice } from './pg-sink-outbox.ts';
import { inTransaction } from './pool.ts';

interface MessageRow {
  message_id: string;
  transfer: 'inbound' | 'outbound';
  document_no: string | null;
  business_action: string | null;
  validation_status: string | null;
  delivery_status: string | null;
  delivery_at: number | null;
  delivery_confirmed: boolean;
  tax_reporting_status: string | null;
  tax_reporting_at: number | null;
  tax_reporting_confirmed: boolean;
  lifecycle_status: string | null;
  lifecycle_at: number | null;
  lifecycle_confirmed: boolean;
  import_started_at: number | null;
  import_attempts: number;
  import_error: string | null;
  imported_at: number | null;
  import_location: string | null;
  acknowledged_at: number | null;
  acknowledgement: Acknowledgement | null;
  failure_reason: string | null;
  last_event_at: number;
}

function toRecord(row: MessageRow): MessageRecord {
  return {
    messageId: row.message_id,
    transfer: row.transfer,
    documentNo: row.document_no,
    businessAction: row.business_action,
    validationStatus: row.validation_status,
    deliveryStatus: row.delivery_status,
    deliveryAt: row.delivery_at,
    deliveryConfirmed: row.delivery_confirmed,
    taxReportingStatus: row.tax_reporting_status,
    taxReportingAt: row.tax_reporting_at,
    taxReportingConfirmed: row.tax_reporting_confirmed,
    lifecycleStatus: row.lifecycle_status,
    lifecycleAt: row.lifecycle_at,
    lifecycleConfirmed: row.lifecycle_confirmed,
    importStartedAt: row.import_started_at,
    importAttempts: row.import_attempts,
    importError: row.import_error,
    importedAt: row.imported_at,
    importLocation: row.import_location,
    acknowledgedAt: row.acknowledged_at,
    acknowledgement: row.acknowledgement,
    failureReason: row.failure_reason,
    lastEventAt: row.last_event_at,
  };
}

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

// What a value may replace, by its source (StatusSource in store.ts), in one statement so a
// concurrent writer can never move a status backwards ($6: fetched, $7: a change).
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

export function createPostgresMessageStore(pool: pg.Pool): MessageStore {
  const writeStatus = async (
    client: pg.PoolClient,
    key: MessageKey,
    write: StatusWrite,
    now: number,
  ): Promise<boolean> => {
    const { rowCount } = await client.query(APPLY[write.kind], [
      key.messageId,
      key.transfer,
      write.value,
      write.at,
      now,
      write.source === 'fetch',
      write.source === 'change',
    ]);
    // The notice for the status sink only with a stored value, in the same transaction.
    const stored = rowCount === 1;
    if (stored && write.notice !== undefined) await queueNotice(client, write.notice, now);
    return stored;
  };
  const upsertThen = (sql: string, key: MessageKey, now: number, values: unknown[]) =>
    inTransaction(pool, async (client) => {
      await client.query(ENSURE, [key.messageId, key.transfer, now]);
      await client.query(sql, [key.messageId, key.transfer, now, ...values]);
    });

  return {
    async get({ messageId, transfer }) {
      const { rows } = await pool.query<MessageRow>(
        'SELECT * FROM messages WHERE message_id = $1 AND transfer = $2',
        [messageId, transfer],
      );
      return rows[0] === undefined ? undefined : toRecord(rows[0]);
    },
    async listSides(messageId) {
      const { rows } = await pool.query<MessageRow>(
        'SELECT * FROM messages WHERE message_id = $1 ORDER BY transfer',
        [messageId],
      );
      return rows.map(toRecord);
    },
    async recordSnapshot(snapshot, now) {
      const key = { messageId: snapshot.messageId, transfer: snapshot.transfer };
      await inTransaction(pool, async (client) => {
        await client.query(TOUCH, [key.messageId, key.transfer, now]);
        await client.query(
          `UPDATE messages
              SET document_no = COALESCE($3, document_no),
                  business_action = COALESCE($4, business_action),
                  validation_status = COALESCE($5, validation_status)
            WHERE message_id = $1 AND transfer = $2`,
          [
            key.messageId,
            key.transfer,
            snapshot.documentNo ?? null,
            snapshot.businessAction ?? null,
            snapshot.validationStatus ?? null,
          ],
        );
        for (const kind of STATUS_KINDS) {
          const value = snapshot.statuses[kind];
          if (value === undefined) continue;
          const notice = snapshot.notices?.[kind];
          await writeStatus(
            client,
            key,
            {
              kind,
              value,
              at: snapshot.at,
              source: snapshot.source,
              ...(notice === undefined ? {} : { notice }),
            },
            now,
          );
        }
      });
    },
    async applyStatus(key, write, now) {
      return inTransaction(pool, async (client) => {
        await client.query(TOUCH, [key.messageId, key.transfer, now]);
        return writeStatus(client, key, write, now);
      });
    },
    async recordStatusChange(change, now) {
      await pool.query(
        `INSERT INTO status_changes (event_id, message_id, transfer, kind, former_value, new_value,
                                     occurred_at, properties, validation_results, outcome,
                                     recorded_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (event_id) DO NOTHING`,
        [
          change.eventId,
          change.messageId,
          change.transfer,
          change.kind,
          change.formerValue,
          change.newValue,
          change.occurredAt,
          change.properties === null ? null : JSON.stringify(change.properties),
          change.validationResults === null ? null : JSON.stringify(change.validationResults),
          change.outcome,
          now,
        ],
      );
    },
    async statusChanges({ messageId, transfer }) {
      const { rows } = await pool.query<{
        event_id: string;
        message_id: string;
        transfer: 'inbound' | 'outbound';
        kind: StatusKind;
        former_value: string;
        new_value: string;
        occurred_at: number;
        properties: Record<string, string> | null;
        validation_results: unknown[] | null;
        outcome: StatusChangeRecord['outcome'];
      }>(
        'SELECT * FROM status_changes WHERE message_id = $1 AND transfer = $2 ORDER BY occurred_at',
        [messageId, transfer],
      );
      return rows.map((row) => ({
        eventId: row.event_id,
        messageId: row.message_id,
        transfer: row.transfer,
        kind: row.kind,
        formerValue: row.former_value,
        newValue: row.new_value,
        occurredAt: row.occurred_at,
        properties: row.properties,
        validationResults: row.validation_results,
        outcome: row.outcome,
      }));
    },
    async transitionsAt({ messageId, transfer }, kind, at) {
      const { rows } = await pool.query<{
        event_id: string;
        former_value: string;
        new_value: string;
      }>(
        `SELECT event_id, former_value, new_value FROM status_changes
          WHERE message_id = $1 AND transfer = $2 AND kind = $3 AND occurred_at = $4`,
        [messageId, transfer, kind, at],
      );
      return rows.map((row) => ({
        eventId: row.event_id,
        formerValue: row.former_value,
        newValue: row.new_value,
      }));
    },
    markImportStarted: (key, now) =>
      upsertThen(
        `UPDATE messages SET import_started_at = COALESCE(import_started_at, $3),
                             import_attempts = import_attempts + 1, updated_at = $3
          WHERE message_id = $1 AND transfer = $2`,
        key,
        now,
        [],
      ),
    markImportFailed: (key, error, now) =>
      upsertThen(
        `UPDATE messages SET import_error = $4, updated_at = $3
          WHERE message_id = $1 AND transfer = $2 AND imported_at IS NULL`,
        key,
        now,
        [error],
      ),
    markImported: (key, location, now) =>
      upsertThen(
        `UPDATE messages SET imported_at = COALESCE(imported_at, $3), import_location = $4,
                             import_error = NULL, updated_at = $3
          WHERE message_id = $1 AND transfer = $2`,
        key,
        now,
        [location],
      ),
    markAcknowledged: (key, acknowledgement, reason, now) =>
      upsertThen(
        `UPDATE messages SET acknowledged_at = $3, acknowledgement = $4, failure_reason = $5,
                             updated_at = $3
          WHERE message_id = $1 AND transfer = $2`,
        key,
        now,
        [acknowledgement, reason],
      ),
    async listStale(before, limit) {
      const { rows } = await pool.query<MessageRow>(
        `SELECT * FROM messages
          WHERE last_event_at < $1
            AND (delivery_status IS NULL OR delivery_status NOT IN ('delivered', 'failed', 'parked'))
          ORDER BY last_event_at LIMIT $2`,
        [before, limit],
      );
      return rows.map(toRecord);
    },
  };
}
