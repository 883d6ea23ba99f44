/**
 * The consumer's view of each message, once per side (transfer): the three statuses with the
 * time of the change that set each, the import record, the acknowledgement, and every status
 * event received. A status write that carries a notice queues it in the status sink's outbox
 * (sink-outbox.ts) in the same transaction.
 */
import type { StatusKind } from '../../protocol/index.ts';
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
   * Stores one status value if its source allows (see StatusSource), in one statement, so a
   * concurrent writer can never move a status backwards; true if stored.
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
