/** The consumer's per-message view on SQLite (see migrations/002_messages.sql). */
import type Database from 'better-sqlite3';
import type { StatusKind } from '../../../protocol/index.ts';
import type {
  Acknowledgement,
  MessageKey,
  MessageRecord,
  MessageSnapshot,
  RecordedTransition,
  StatusChangeRecord,
  StatusWrite,
} from '../messages.ts';
import { STATUS_KINDS } from '../status-columns.ts';
import { applyStatusSql, MESSAGE_SQL } from './messages-queries.ts';
import { noticeEnqueuer } from './sqlite-sink-outbox.ts';

interface MessageRow {
  message_id: string;
  transfer: 'inbound' | 'outbound';
  document_no: string | null;
  business_action: string | null;
  validation_status: string | null;
  delivery_status: string | null;
  delivery_at: number | null;
  delivery_confirmed: number;
  tax_reporting_status: string | null;
  tax_reporting_at: number | null;
  tax_reporting_confirmed: number;
  lifecycle_status: string | null;
  lifecycle_at: number | null;
  lifecycle_confirmed: number;
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

interface StatusChangeRow {
  event_id: string;
  message_id: string;
  transfer: 'inbound' | 'outbound';
  kind: StatusKind;
  former_value: string;
  new_value: string;
  occurred_at: number;
  properties: string | null;
  validation_results: string | null;
  outcome: StatusChangeRecord['outcome'];
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
    deliveryConfirmed: row.delivery_confirmed === 1,
    taxReportingStatus: row.tax_reporting_status,
    taxReportingAt: row.tax_reporting_at,
    taxReportingConfirmed: row.tax_reporting_confirmed === 1,
    lifecycleStatus: row.lifecycle_status,
    lifecycleAt: row.lifecycle_at,
    lifecycleConfirmed: row.lifecycle_confirmed === 1,
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

/** Message writes, for the writer thread; each call runs atomically there (a savepoint). */
export function messageWrites(db: Database.Database) {
  // last_event_at moves with news about the message (an event, a fresh descriptor), not with
  // the consumer's own import and acknowledgement, so reconciliation can find silent ones.
  const touch = db.prepare<{ messageId: string; transfer: string; now: number }>(MESSAGE_SQL.touch);
  const ensure = db.prepare<{ messageId: string; transfer: string; now: number }>(
    MESSAGE_SQL.ensure,
  );
  const keepFields = db.prepare(MESSAGE_SQL.keepFields);
  // What a value may replace, by its source (StatusSource in store.ts), in one statement so a
  // concurrent writer can never move a status backwards. The same-millisecond rule itself is
  // the caller's (worker/status-order.ts); the store only refuses what no rule allows.
  const applyKind = Object.fromEntries(
    STATUS_KINDS.map((kind) => [kind, db.prepare(applyStatusSql(kind))]),
  ) as Record<StatusKind, Database.Statement>;
  const enqueueNotice = noticeEnqueuer(db);
  // The value, and its notice for the status sink only if the value was stored, in the
  // caller's transaction (one writer call).
  const writeStatus = (key: MessageKey, write: StatusWrite, now: number): boolean => {
    const stored =
      applyKind[write.kind].run({
        ...key,
        value: write.value,
        at: write.at,
        fetched: write.source === 'fetch' ? 1 : 0,
        change: write.source === 'change' ? 1 : 0,
        now,
      }).changes === 1;
    if (stored && write.notice !== undefined) enqueueNotice(write.notice, now);
    return stored;
  };
  const insertChange = db.prepare(MESSAGE_SQL.insertChange);
  const importStarted = db.prepare(MESSAGE_SQL.importStarted);
  const importFailed = db.prepare(MESSAGE_SQL.importFailed);
  const imported = db.prepare(MESSAGE_SQL.imported);
  const acknowledged = db.prepare(MESSAGE_SQL.acknowledged);

  const keyOf = (key: MessageKey) => ({ messageId: key.messageId, transfer: key.transfer });
  return {
    recordSnapshot(snapshot: MessageSnapshot, now: number): void {
      const key = keyOf(snapshot);
      touch.run({ ...key, now });
      keepFields.run({
        ...key,
        documentNo: snapshot.documentNo ?? null,
        businessAction: snapshot.businessAction ?? null,
        validationStatus: snapshot.validationStatus ?? null,
      });
      for (const kind of STATUS_KINDS) {
        const value = snapshot.statuses[kind];
        if (value === undefined) continue;
        const notice = snapshot.notices?.[kind];
        writeStatus(
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
    },
    applyStatus(key: MessageKey, write: StatusWrite, now: number): boolean {
      touch.run({ ...keyOf(key), now });
      return writeStatus(keyOf(key), write, now);
    },
    recordStatusChange(change: StatusChangeRecord, now: number): void {
      insertChange.run({
        ...change,
        properties: change.properties === null ? null : JSON.stringify(change.properties),
        validationResults:
          change.validationResults === null ? null : JSON.stringify(change.validationResults),
        now,
      });
    },
    markImportStarted(key: MessageKey, now: number): void {
      ensure.run({ ...keyOf(key), now });
      importStarted.run({ ...keyOf(key), now });
    },
    markImportFailed(key: MessageKey, error: string, now: number): void {
      ensure.run({ ...keyOf(key), now });
      importFailed.run({ ...keyOf(key), error, now });
    },
    markImported(key: MessageKey, location: string, now: number): void {
      ensure.run({ ...keyOf(key), now });
      imported.run({ ...keyOf(key), location, now });
    },
    markAcknowledged(
      key: MessageKey,
      acknowledgement: Acknowledgement,
      reason: string | null,
      now: number,
    ): void {
      ensure.run({ ...keyOf(key), now });
      acknowledged.run({ ...keyOf(key), acknowledgement, reason, now });
    },
  };
}

/** Message reads, for the main thread. */
export function messageReads(db: Database.Database) {
  const getRow = db.prepare<[string, string], MessageRow>(MESSAGE_SQL.get);
  const sides = db.prepare<[string], MessageRow>(MESSAGE_SQL.sides);
  const changes = db.prepare<[string, string], StatusChangeRow>(MESSAGE_SQL.changes);
  const transitions = db.prepare<
    [string, string, string, number],
    { event_id: string; former_value: string; new_value: string }
  >(MESSAGE_SQL.transitions);
  const stale = db.prepare<[number, number], MessageRow>(MESSAGE_SQL.stale);
  return {
    get({ messageId, transfer }: MessageKey): MessageRecord | undefined {
      const row = getRow.get(messageId, transfer);
      return row === undefined ? undefined : toRecord(row);
    },
    listSides(messageId: string): MessageRecord[] {
      return sides.all(messageId).map(toRecord);
    },
    transitionsAt(
      { messageId, transfer }: MessageKey,
      kind: StatusKind,
      at: number,
    ): RecordedTransition[] {
      return transitions.all(messageId, transfer, kind, at).map((row) => ({
        eventId: row.event_id,
        formerValue: row.former_value,
        newValue: row.new_value,
      }));
    },
    statusChanges({ messageId, transfer }: MessageKey): StatusChangeRecord[] {
      return changes.all(messageId, transfer).map((row) => ({
        eventId: row.event_id,
        messageId: row.message_id,
        transfer: row.transfer,
        kind: row.kind,
        formerValue: row.former_value,
        newValue: row.new_value,
        occurredAt: row.occurred_at,
        properties: row.properties === null ? null : JSON.parse(row.properties),
        validationResults:
          row.validation_results === null ? null : JSON.parse(row.validation_results),
        outcome: row.outcome,
      }));
    },
    listStale(before: number, limit: number): MessageRecord[] {
      return stale.all(before, limit).map(toRecord);
    },
  };
}
