/** The consumer's per-message view on SQLite (see migrations/002_messages.sql). */
import type Database from 'better-sqlite3';
import type { StatusKind } from '../../../protocol/index.ts';
import {
  asJson,
  type MessageColumns,
  type MessageKey,
  type MessageRecord,
  type MessageStore,
  type StatusChangeColumns,
  type StatusChangeRecord,
  type StatusWrite,
  snapshotWrites,
  type TransitionColumns,
  toMessageRecord,
  toStatusChange,
  toTransition,
} from '../messages.ts';
import { STATUS_KINDS } from '../status-columns.ts';
import { applyStatusSql, MESSAGE_SQL } from './messages-queries.ts';
import { noticeEnqueuer } from './sqlite-sink-outbox.ts';
import type { Synchronous } from './synchronous.ts';

/** What the main thread reads; the rest of MessageStore is written on the writer thread. */
type MessageReads = Pick<
  MessageStore,
  'get' | 'listSides' | 'transitionsAt' | 'statusChanges' | 'listStale'
>;

type Confirmed = 'delivery_confirmed' | 'tax_reporting_confirmed' | 'lifecycle_confirmed';

/** A messages row as SQLite returns it: the confirmed flags are the integers 0 and 1. */
type MessageRow = Omit<MessageColumns, Confirmed> & Record<Confirmed, number>;

const fromRow = (row: MessageRow): MessageRecord =>
  toMessageRecord({
    ...row,
    delivery_confirmed: row.delivery_confirmed === 1,
    tax_reporting_confirmed: row.tax_reporting_confirmed === 1,
    lifecycle_confirmed: row.lifecycle_confirmed === 1,
  });

/** A status_changes row as SQLite returns it: properties and validation results as JSON text. */
type StatusChangeRow = Omit<StatusChangeColumns, 'properties' | 'validation_results'> & {
  properties: string | null;
  validation_results: string | null;
};

const fromChangeRow = (row: StatusChangeRow): StatusChangeRecord =>
  toStatusChange({
    ...row,
    properties: row.properties === null ? null : JSON.parse(row.properties),
    validation_results: row.validation_results === null ? null : JSON.parse(row.validation_results),
  });

/** Message writes, for the writer thread; each call runs atomically there (a savepoint). */
export function messageWrites(
  db: Database.Database,
): Synchronous<Omit<MessageStore, keyof MessageReads>> {
  // last_event_at moves with news about the message (an event, a fresh descriptor), not with
  // the consumer's own import and acknowledgement, so reconciliation can find silent ones.
  const touch = db.prepare<{ messageId: string; transfer: string; now: number }>(MESSAGE_SQL.touch);
  const ensure = db.prepare<{ messageId: string; transfer: string; now: number }>(
    MESSAGE_SQL.ensure,
  );
  const keepFields = db.prepare(MESSAGE_SQL.keepFields);
  const writeStatus = statusWriter(db);
  const insertChange = db.prepare(MESSAGE_SQL.insertChange);
  const importStarted = db.prepare(MESSAGE_SQL.importStarted);
  const importFailed = db.prepare(MESSAGE_SQL.importFailed);
  const imported = db.prepare(MESSAGE_SQL.imported);
  const acknowledged = db.prepare(MESSAGE_SQL.acknowledged);

  const keyOf = (key: MessageKey) => ({ messageId: key.messageId, transfer: key.transfer });
  return {
    recordSnapshot(snapshot, now) {
      const key = keyOf(snapshot);
      touch.run({ ...key, now });
      keepFields.run({
        ...key,
        documentNo: snapshot.documentNo ?? null,
        businessAction: snapshot.businessAction ?? null,
        validationStatus: snapshot.validationStatus ?? null,
      });
      for (const write of snapshotWrites(snapshot)) writeStatus(key, write, now);
    },
    applyStatus(key, write, now) {
      touch.run({ ...keyOf(key), now });
      return writeStatus(keyOf(key), write, now);
    },
    recordStatusChange(change, now) {
      insertChange.run({
        ...change,
        properties: asJson(change.properties),
        validationResults: asJson(change.validationResults),
        now,
      });
    },
    markImportStarted(key, now) {
      ensure.run({ ...keyOf(key), now });
      importStarted.run({ ...keyOf(key), now });
    },
    markImportFailed(key, error, now) {
      ensure.run({ ...keyOf(key), now });
      importFailed.run({ ...keyOf(key), error, now });
    },
    markImported(key, location, now) {
      ensure.run({ ...keyOf(key), now });
      imported.run({ ...keyOf(key), location, now });
    },
    markAcknowledged(key, acknowledgement, reason, now) {
      ensure.run({ ...keyOf(key), now });
      acknowledged.run({ ...keyOf(key), acknowledgement, reason, now });
    },
  };
}

/**
 * Stores a status value, and its notice for the status sink only if the value was stored, in
 * the caller's transaction (one writer call); true if stored. What a value may replace, by its
 * source (StatusSource in ../messages.ts), is one statement, so a concurrent writer can never
 * move a status backwards. The same-millisecond rule itself is the caller's
 * (worker/status-order.ts); the store only refuses what no rule allows.
 */
function statusWriter(db: Database.Database) {
  const applyKind = Object.fromEntries(
    STATUS_KINDS.map((kind) => [kind, db.prepare(applyStatusSql(kind))]),
  ) as Record<StatusKind, Database.Statement>;
  const enqueueNotice = noticeEnqueuer(db);
  return (key: MessageKey, write: StatusWrite, now: number): boolean => {
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
}

/** Message reads, for the main thread. */
export function messageReads(db: Database.Database): Synchronous<MessageReads> {
  const getRow = db.prepare<[string, string], MessageRow>(MESSAGE_SQL.get);
  const sides = db.prepare<[string], MessageRow>(MESSAGE_SQL.sides);
  const changes = db.prepare<[string, string], StatusChangeRow>(MESSAGE_SQL.changes);
  const transitions = db.prepare<[string, string, string, number], TransitionColumns>(
    MESSAGE_SQL.transitions,
  );
  const stale = db.prepare<[number, number], MessageRow>(MESSAGE_SQL.stale);
  return {
    get({ messageId, transfer }) {
      const row = getRow.get(messageId, transfer);
      return row === undefined ? undefined : fromRow(row);
    },
    listSides(messageId) {
      return sides.all(messageId).map(fromRow);
    },
    transitionsAt({ messageId, transfer }, kind, at) {
      return transitions.all(messageId, transfer, kind, at).map(toTransition);
    },
    statusChanges({ messageId, transfer }) {
      return changes.all(messageId, transfer).map(fromChangeRow);
    },
    listStale(before, limit) {
      return stale.all(before, limit).map(fromRow);
    },
  };
}
