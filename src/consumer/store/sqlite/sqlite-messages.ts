/** The consumer's per-message view on SQLite (see migrations/002_messages.sql). */
import type Database from 'better-sqlite3';
import {
  asJson,
  type MessageColumns,
  type MessageKey,
  type MessageRecord,
  type MessageSnapshot,
  type MessageStore,
  replacesStatus,
  type StatusChangeColumns,
  type StatusChangeRecord,
  type StatusWrite,
  snapshotWrites,
  type TransitionColumns,
  toMessageRecord,
  toStatusChange,
  toTransition,
} from '../messages.ts';
import { STATUS_COLUMNS, STATUS_KINDS } from '../status-columns.ts';
import { MESSAGE_SQL } from './messages-queries.ts';
import { noticeEnqueuer } from './sqlite-sink-outbox.ts';
import type { Synchronous, SynchronousTraced } from './synchronous.ts';

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

/**
 * Message writes, for the writer thread; each call runs atomically there (a savepoint). The
 * writes that may queue a sink notice take the caller's traceparent last.
 */
export function messageWrites(
  db: Database.Database,
): SynchronousTraced<Omit<MessageStore, keyof MessageReads>, 'recordSnapshot' | 'applyStatus'> {
  const writeSide = sideWriter(db);
  const insertChange = db.prepare(MESSAGE_SQL.insertChange);
  const importStarted = db.prepare(MESSAGE_SQL.importStarted);
  const importFailed = db.prepare(MESSAGE_SQL.importFailed);
  const imported = db.prepare(MESSAGE_SQL.imported);
  const acknowledged = db.prepare(MESSAGE_SQL.acknowledged);

  const keyOf = (key: MessageKey) => ({ messageId: key.messageId, transfer: key.transfer });
  return {
    recordSnapshot(snapshot, now, traceParent) {
      writeSide(keyOf(snapshot), snapshot, snapshotWrites(snapshot), now, traceParent);
    },
    applyStatus(key, write, now, traceParent) {
      return writeSide(keyOf(key), {}, [write], now, traceParent)[0] === true;
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
      importStarted.run({ ...keyOf(key), now });
    },
    markImportFailed(key, error, now) {
      importFailed.run({ ...keyOf(key), error, now });
    },
    markImported(key, location, now) {
      imported.run({ ...keyOf(key), location, now });
    },
    markAcknowledged(key, acknowledgement, reason, now) {
      acknowledged.run({ ...keyOf(key), acknowledgement, reason, now });
    },
  };
}

/** The status times of a side as statusTimes reads them (the confirmed flags 0 or 1). */
type StatusTimesRow = Record<string, number | null>;

/**
 * Writes news about a side in one statement (writeSide): its descriptor fields, each status
 * value its source allows (replacesStatus in ../messages.ts, against the side as read in this
 * same transaction of the writer, which no other connection can write meanwhile), and the
 * notice of each value stored, for the status sink (none for a refused write). So a status is
 * never moved backwards. The same-millisecond rule itself is the caller's
 * (worker/status-order.ts); the store only refuses what no rule allows. Returns, per write,
 * whether it was stored.
 */
function sideWriter(db: Database.Database) {
  const statusTimes = db.prepare<[string, string], StatusTimesRow>(MESSAGE_SQL.statusTimes);
  const write = db.prepare(MESSAGE_SQL.writeSide);
  const enqueueNotice = noticeEnqueuer(db);
  return (
    key: MessageKey,
    fields: Pick<MessageSnapshot, 'documentNo' | 'businessAction' | 'validationStatus'>,
    writes: StatusWrite[],
    now: number,
    traceParent: string | null,
  ): boolean[] => {
    const times = writes.length === 0 ? undefined : statusTimes.get(key.messageId, key.transfer);
    const parameters: Record<string, unknown> = {
      ...key,
      documentNo: fields.documentNo ?? null,
      businessAction: fields.businessAction ?? null,
      validationStatus: fields.validationStatus ?? null,
      now,
    };
    for (const kind of STATUS_KINDS) {
      Object.assign(parameters, {
        [`${kind}Store`]: 0,
        [`${kind}Value`]: null,
        [`${kind}At`]: null,
        [`${kind}Confirmed`]: 0,
      });
    }
    const stored = writes.map((status) => {
      const { at, confirmed } = STATUS_COLUMNS[status.kind];
      const current = { at: times?.[at] ?? null, confirmed: times?.[confirmed] === 1 };
      if (!replacesStatus(current, status)) return false;
      Object.assign(parameters, {
        [`${status.kind}Store`]: 1,
        [`${status.kind}Value`]: status.value,
        [`${status.kind}At`]: status.at,
        [`${status.kind}Confirmed`]: status.source === 'fetch' ? 1 : 0,
      });
      return true;
    });
    write.run(parameters);
    writes.forEach((status, i) => {
      if (stored[i] === true && status.notice !== undefined) {
        enqueueNotice(status.notice, now, traceParent);
      }
    });
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
