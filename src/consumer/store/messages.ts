/**
 * The consumer's view of each message, once per side (transfer): the three statuses with the
 * time of the change that set each, the import record, the acknowledgement, and every status
 * event received. A status write that carries a notice queues it in the status sink's outbox
 * (sink-outbox.ts) in the same transaction.
 */
import type { StatusKind } from '../../protocol/index.ts';
import { STATUS_KINDS } from './status-columns.ts';
import type { StatusChangeNotice } from './status-notice.ts';

export type Acknowledgement = 'delivered' | 'failed';

/** The consumer's view of one side (transfer) of a message. Times are ms since the epoch. */
export interface MessageRecord {
  messageId: string;
  transfer: 'inbound' | 'outbound';
  documentNo: string | null;
  businessAction: string | null;
  validationStatus: string | null;
  deliveryStatus: string | null;
  deliveryAt: number | null;
  deliveryConfirmed: boolean;
  taxReportingStatus: string | null;
  taxReportingAt: number | null;
  taxReportingConfirmed: boolean;
  lifecycleStatus: string | null;
  lifecycleAt: number | null;
  lifecycleConfirmed: boolean;
  /** When an import was first started; with importedAt null, one may have half-happened. */
  importStartedAt: number | null;
  /**
   * import() calls started for this side (counted as each is about to start; sides imported
   * before migration 009 count 1).
   */
  importAttempts: number;
  /** The last transient import error, its causes included; null once an import succeeded. */
  importError: string | null;
  importedAt: number | null;
  /** Where the importer put the documents (a directory, an ERP document number, a URL). */
  importLocation: string | null;
  acknowledgedAt: number | null;
  acknowledgement: Acknowledgement | null;
  failureReason: string | null;
  lastEventAt: number;
}

export interface MessageKey {
  messageId: string;
  transfer: 'inbound' | 'outbound';
}

/**
 * Where a status value comes from, which decides what it may replace (see
 * worker/status-order.ts). Every source replaces a value older than its `at`; at the same
 * millisecond:
 *   change      a status event, or the end of a same-millisecond chain: replaces a value that
 *               is not confirmed;
 *   descriptor  the descriptor carried by a message event, a state at some instant of that
 *               millisecond: replaces nothing;
 *   fetch       GET /messages/:mid, which reflects every change up to `at`: replaces anything
 *               and is stored as confirmed.
 */
export type StatusSource = 'change' | 'descriptor' | 'fetch';

/**
 * Whether a status write may replace the stored value of its kind (`at`: when that value was
 * set, null if none; `confirmed`: it was fetched), by the rule of StatusSource. PostgreSQL
 * states the same rule in its statement (pg-messages.ts); SQLite applies this to the side as
 * read in the writer's transaction (sqlite-messages.ts).
 */
export function replacesStatus(
  stored: { at: number | null; confirmed: boolean },
  write: Pick<StatusWrite, 'at' | 'source'>,
): boolean {
  if (stored.at === null || stored.at < write.at) return true;
  if (stored.at > write.at) return false;
  return write.source === 'fetch' || (write.source === 'change' && !stored.confirmed);
}

export interface StatusWrite {
  kind: StatusKind;
  value: string;
  /** occurredAt (ms) of the change, or the time up to which a fetch is known to be current. */
  at: number;
  source: StatusSource;
  /**
   * The change to tell the status sink: queued in the sink outbox in the same transaction,
   * and only when the write stores the value (a refused write queues nothing). A notice whose
   * id is already queued is not queued again.
   */
  notice?: StatusChangeNotice;
}

/** Descriptor fields the consumer keeps; statuses land as `source` allows. */
export interface MessageSnapshot extends MessageKey {
  documentNo?: string;
  businessAction?: string;
  validationStatus?: string;
  statuses: Partial<Record<StatusKind, string>>;
  /** occurredAt (ms) of the event, or the time up to which the fetch is current. */
  at: number;
  source: 'descriptor' | 'fetch';
  /** Per kind, the change to tell the status sink, queued as StatusWrite.notice is. */
  notices?: Partial<Record<StatusKind, StatusChangeNotice>>;
}

/** One status transition as received (for the same-millisecond rule). */
export interface RecordedTransition {
  eventId: string;
  formerValue: string;
  newValue: string;
}

export interface StatusChangeRecord extends MessageKey {
  eventId: string;
  kind: StatusKind;
  formerValue: string;
  newValue: string;
  occurredAt: number;
  properties: Record<string, string> | null;
  validationResults: unknown[] | null;
  outcome: 'applied' | 'stale' | 'refreshed';
}

export interface MessageStore {
  get(key: MessageKey): Promise<MessageRecord | undefined>;
  /** Both sides of a message (one for most messages, two for a self-send). */
  listSides(messageId: string): Promise<MessageRecord[]>;
  /** Creates the row if needed, keeps descriptor fields, applies each status its source allows. */
  recordSnapshot(snapshot: MessageSnapshot, now: number): Promise<void>;
  /**
   * Stores one status value if its source allows (replacesStatus), atomically (one statement,
   * or a read and a write under the database's write lock), so a concurrent writer can never
   * move a status backwards; true if stored.
   */
  applyStatus(key: MessageKey, write: StatusWrite, now: number): Promise<boolean>;
  recordStatusChange(change: StatusChangeRecord, now: number): Promise<void>;
  statusChanges(key: MessageKey): Promise<StatusChangeRecord[]>;
  /** The recorded transitions of one kind whose occurredAt is exactly `at` (ms). */
  transitionsAt(key: MessageKey, kind: StatusKind, at: number): Promise<RecordedTransition[]>;
  /**
   * Notes that an import is about to start: importStartedAt is kept from the first attempt on,
   * importAttempts counts each.
   */
  markImportStarted(key: MessageKey, now: number): Promise<void>;
  /**
   * Notes why an import failed transiently (describeError's text); the next one may succeed.
   * Ignored once an import is recorded (a late report of a holder that lost its claim).
   */
  markImportFailed(key: MessageKey, error: string, now: number): Promise<void>;
  /** Records a successful import and clears importError. */
  markImported(key: MessageKey, location: string, now: number): Promise<void>;
  markAcknowledged(
    key: MessageKey,
    acknowledgement: Acknowledgement,
    reason: string | null,
    now: number,
  ): Promise<void>;
  /** Sides whose last event is older than `before` and whose delivery status is not final. */
  listStale(before: number, limit: number): Promise<MessageRecord[]>;
}

// What both implementations share: how stored rows read back, and the writes of a snapshot.

/** A row of the messages table, as both stores read it (SQLite's 0/1 flags made boolean). */
export interface MessageColumns {
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

export function toMessageRecord(row: MessageColumns): MessageRecord {
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

/** A row of the status_changes table, as both stores read it (SQLite's JSON text parsed). */
export interface StatusChangeColumns {
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
}

export function toStatusChange(row: StatusChangeColumns): StatusChangeRecord {
  return {
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
  };
}

/** A change's properties or validation results as stored: JSON text, or null. */
export function asJson(value: Record<string, string> | unknown[] | null): string | null {
  return value === null ? null : JSON.stringify(value);
}

/** The columns of status_changes that transitionsAt reads. */
export type TransitionColumns = Pick<
  StatusChangeColumns,
  'event_id' | 'former_value' | 'new_value'
>;

export function toTransition(row: TransitionColumns): RecordedTransition {
  return { eventId: row.event_id, formerValue: row.former_value, newValue: row.new_value };
}

/** The status writes of a snapshot: one per status it carries, each with its notice if any. */
export function snapshotWrites(snapshot: MessageSnapshot): StatusWrite[] {
  return STATUS_KINDS.flatMap((kind): StatusWrite[] => {
    const value = snapshot.statuses[kind];
    if (value === undefined) return [];
    const notice = snapshot.notices?.[kind];
    return [
      {
        kind,
        value,
        at: snapshot.at,
        source: snapshot.source,
        ...(notice === undefined ? {} : { notice }),
      },
    ];
  });
}
