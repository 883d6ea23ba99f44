/**
 * The store contract: the inbox, the message claims, and the consumer's local view of
 * messages. Every method is asynchronous, so an implementation may commit off the event loop
 * (a writer thread) or over the network (PostgreSQL); what each must guarantee is written on
 * it and in README.md. The inbox is the only state the HTTP ingress and the worker share:
 * ingress inserts, the worker claims and settles.
 *
 * Event states:
 *   pending    -> processing   claimed with its message's claim (attempts + 1)
 *   processing -> done         handled
 *   processing -> skipped      test event or unknown action: stored, never imported
 *   processing -> pending      failed, retried at next_attempt_at
 *   processing -> dead         failed for the last allowed time; an operator may replay it
 *   dead -> done               closed: its message was acknowledged meanwhile by another
 *                              handler (closeDead), so nothing is left to do; `resolution`
 *                              says who acknowledged it and when, `lastError` is kept
 *   dead|done|skipped -> pending  replay
 * A processing row whose message claim has ended (its holder died) is claimable again.
 *
 * Message claims: one message, one handler. Whatever handles a message (the worker for an
 * event, reconciliation for a message the service lists as pending, a status refresh) first
 * takes that message's claim: a lease until a time, with a token that changes at every
 * acquisition. The holder renews it while it works; a holder that dies stops renewing and,
 * once the lease ends, anyone may take the claim over. Writes that act for a claim (settling
 * its event) name the token and do nothing when the claim has passed to someone else.
 */
import { isKnownAction, type StatusKind, type WebhookEnvelope } from '../../protocol/index.ts';
import type {
  StatusChangeNotice,
  StatusNotice,
  SubmissionResolution,
} from '../sink/status-notice.ts';

export type { SubmissionResolution };

export type EventState = 'pending' | 'processing' | 'done' | 'skipped' | 'dead';
export const EVENT_STATES: readonly EventState[] = [
  'pending',
  'processing',
  'done',
  'skipped',
  'dead',
];

/**
 * The states countOpen counts, of events still needing something: pending and processing ones
 * are the open events (work to do); dead ones wait for an operator, or for retention once their
 * message is settled (RetentionStore.pruneDeadEvents), and are reported apart.
 */
export type OpenState = 'pending' | 'processing' | 'dead';
export const OPEN_STATES: readonly OpenState[] = ['pending', 'processing', 'dead'];

/** See EventStore.oldestOpen. */
export interface OldestOpen {
  /** receivedAt of the oldest pending event. */
  pending: number | null;
  /** When the processing event claimed longest ago was claimed. */
  processing: number | null;
}

/** Why an event is stored but never acted upon. */
export type EventFlag = 'test' | 'unknown_action';

export interface NewEvent {
  eventId: string;
  action: string;
  transfer: 'inbound' | 'outbound';
  messageId: string;
  party: string;
  occurredAt: string;
  test: boolean;
  flag: EventFlag | null;
  /** The request body exactly as received and verified. */
  body: Buffer;
  /** Milliseconds since the epoch. */
  receivedAt: number;
}

/**
 * The inbox row of a verified envelope, as the ingress stores it: test events and unknown
 * actions are flagged, so the worker skips them. `body` is the request body exactly as signed.
 */
export function newEvent(envelope: WebhookEnvelope, body: Buffer, receivedAt: number): NewEvent {
  return {
    eventId: envelope.eventId,
    action: envelope.action,
    transfer: envelope.transfer,
    messageId: envelope.messageId,
    party: envelope.party,
    occurredAt: envelope.occurredAt,
    test: envelope.test,
    flag: envelope.test ? 'test' : isKnownAction(envelope.action) ? null : 'unknown_action',
    body,
    receivedAt,
  };
}

export interface StoredEvent extends NewEvent {
  /** Empty once retention has dropped it (RETENTION_BODY_DAYS); the row stays for a while. */
  body: Buffer;
  state: EventState;
  attempts: number;
  nextAttemptAt: number;
  lockedUntil: number | null;
  lastError: string | null;
  /**
   * Why a dead event was closed without being handled again (closeDead), e.g. `closed: message
   * acknowledged (delivered) by reconciliation at 2026-05-04T10:00:00.000Z`; null otherwise.
   */
  resolution: string | null;
  updatedAt: number;
}

/** Which dead events closeDead closes, and what it records on them. */
export interface DeadEventClosure {
  messageId: string;
  transfer: 'inbound' | 'outbound';
  action: string;
  /** Stored as the events' `resolution`. */
  resolution: string;
  now: number;
}

export type InsertOutcome = 'inserted' | 'duplicate';

/** How a claimed event ends its turn. */
export type Settlement =
  /** `dropBody`: keep no raw body once the event is finished (RETENTION_BODY_DAYS=0). */
  | { state: 'done' | 'skipped'; dropBody?: boolean }
  | { state: 'pending'; nextAttemptAt: number; error: string }
  | { state: 'dead'; error: string };

/** not_replayable: pending or in processing; body_dropped: retention dropped its body. */
export type ReplayOutcome = 'replayed' | 'not_found' | 'not_replayable' | 'body_dropped';

/**
 * Where a listing stopped: opaque to callers, meaningful to the store that made it. The next
 * page starts after it, found through the index, however deep the listing goes.
 */
export type EventCursor = string;

export interface EventPage {
  items: StoredEvent[];
  /** Pass as `after` for the next page; null on the last one. */
  next: EventCursor | null;
}

/** A held claim on one message (see the header of this file). */
export interface MessageClaim {
  messageId: string;
  /** Who holds it, for operators and for releasing a dead local process's claims. */
  holder: string;
  /** Unique to this acquisition: writes for the claim are fenced by it. */
  token: string;
  /** Ms since the epoch; after it, the claim may be taken over. */
  leaseUntil: number;
}

export interface ClaimRequest {
  holder: string;
  now: number;
  leaseMs: number;
}

export interface ClaimStore {
  /** Takes the message's claim if nobody holds it or its lease has ended; else undefined. */
  acquire(messageId: string, request: ClaimRequest): Promise<MessageClaim | undefined>;
  /** Extends a held claim to `now + leaseMs`; undefined when it was lost (taken over). */
  renew(
    claim: MessageClaim,
    request: { now: number; leaseMs: number },
  ): Promise<MessageClaim | undefined>;
  /** Gives a claim up (nothing happens if it was already lost). */
  release(claim: MessageClaim): Promise<void>;
  get(messageId: string): Promise<MessageClaim | undefined>;
  /** The holders of unexpired claims, for deciding which belong to a dead local process. */
  holders(now: number): Promise<string[]>;
  /** Ends every claim of `holder` at once (its process is known to be gone); returns how many. */
  releaseHolder(holder: string): Promise<number>;
}

/** An event claimed for handling, with the claim of its message. */
export interface ClaimedEvent extends StoredEvent {
  claim: MessageClaim;
}

export interface EventStore {
  /** Resolves only once the row is durably committed; a duplicate eventId changes nothing. */
  insert(event: NewEvent): Promise<InsertOutcome>;
  get(eventId: string): Promise<StoredEvent | undefined>;
  /**
   * Newest first, a page at a time (keyset pagination: each page costs the same, however deep).
   * An `after` this store did not make is rejected with InvalidCursorError.
   */
  list(query: {
    state?: EventState | undefined;
    limit: number;
    after?: EventCursor | undefined;
  }): Promise<EventPage>;
  /**
   * Events in the states an operator watches (pending, processing, dead), in time bounded by
   * the backlog and the dead events retention keeps, not by history (done and skipped events
   * are counted by the worker's metrics).
   */
  countOpen(): Promise<Record<OpenState, number>>;
  /**
   * How long the inbox has waited on its worker (the `inbox_oldest_event_age_seconds` gauge):
   * when the oldest pending event was received, and when the longest-running processing event
   * was claimed (the start of its current turn), ms since the epoch; null when there is none.
   * An index probe each, bounded by the events in hand, not by history.
   */
  oldestOpen(): Promise<OldestOpen>;
  /**
   * Atomically, also against other processes: takes up to `limit` due events, at most one per
   * message and none of a message whose claim is held, each with its message's claim for
   * `holder` until `now + leaseMs`; oldest due first. A claimed event is `processing` with
   * attempts incremented. An event left in processing by a holder whose lease ended is due.
   * Its cost must not grow with the backlog.
   */
  claimDue(query: ClaimRequest & { limit: number }): Promise<ClaimedEvent[]>;
  /**
   * Ends a claimed event's turn and releases its message's claim, in one transaction; false
   * (and nothing written) when the claim was lost meanwhile.
   */
  settle(event: ClaimedEvent, settlement: Settlement, now: number): Promise<boolean>;
  /** A dead, done or skipped event back to pending, due now, attempts reset. */
  replay(eventId: string, now: number): Promise<ReplayOutcome>;
  /**
   * Closes the dead events of one message, transfer and action whose work another handler has
   * since done (its acknowledgement): dead -> done with `resolution`, lastError kept, so they
   * leave the dead count. Found through an index of dead events by message, in time bounded
   * by them, not by history. Returns the eventIds closed.
   */
  closeDead(closure: DeadEventClosure): Promise<string[]>;
}

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

/**
 * How much one retention batch may do: at most `limit` rows (pages for `reclaim`), and no more
 * once it has held the store for `budgetMs`. The budget is checked between rows (between a few
 * pages, between statements of a few dozen rows on PostgreSQL), so a batch ends within one
 * row of it whatever the rows cost; the caller sizes `limit` so most batches end before it.
 */
export interface BatchBound {
  limit: number;
  budgetMs: number;
}

/**
 * What one retention batch did. `more` is true when it stopped at its limit or its budget
 * (there may be more to do); `ms` is how long it held the store: on SQLite the writer thread,
 * from the start of its transaction to the end of its write-back (a WAL checkpoint of what it
 * wrote); on PostgreSQL its transaction, from BEGIN to COMMIT. `workMs` is the part of it
 * that grows with the batch's rows, which the pruner sizes batches by: on SQLite all of it (the
 * commit and checkpoint write back the pages the batch changed); on PostgreSQL the time before
 * COMMIT, because a commit there (an fsync: 5 to 15 ms on a cloud disk) costs the same for one
 * row as for a hundred, and sizing by it shrank every batch to a row or two.
 */
export interface PruneBatch {
  count: number;
  more: boolean;
  ms: number;
  workMs: number;
}

/** A message side retention deleted, for the importer's forget hook. */
export interface ForgottenMessage extends MessageKey {
  importLocation: string | null;
}

/** The cut-offs of dead events (ms since the epoch of their arrival); see pruneDeadEvents. */
export interface DeadCutoffs {
  /** A dead event of a settled message received before this is deleted. */
  settled: number;
  /** Any dead event received before this is deleted (at most `settled`). */
  any: number;
}

/**
 * Retention, in batches a caller repeats while `more` (src/consumer/retention/pruner.ts). Each
 * batch is one short transaction that walks an index from its oldest entry, so its cost does
 * not grow with history, and stops at its BatchBound, so no batch holds the store much past
 * its budget. Only finished events (done, skipped), dead events as pruneDeadEvents says,
 * final messages (delivered, failed, parked) and delivered sink notices are ever deleted. Where several processes share
 * the store, one prunes at a time: a batch that finds another pruning reports nothing to do.
 */
export interface RetentionStore {
  /** Empties the bodies of finished events received before `before`, oldest first. */
  dropBodies(before: number, bound: BatchBound): Promise<PruneBatch>;
  /**
   * Deletes finished events received before `before` with their status changes, keeping the
   * eventId of each received since `rememberSince` in the dedupe record (insert still answers
   * `duplicate` for it; an older one is past the dedupe period already).
   */
  pruneEvents(
    before: number,
    bound: BatchBound,
    options: { rememberSince: number },
  ): Promise<PruneBatch>;
  /**
   * Deletes dead events that nobody will act on any more, as pruneEvents deletes finished ones
   * (status changes with them, eventIds kept in the dedupe record since `rememberSince`): those
   * of a settled message (acknowledged, or final at the service: delivered, failed, parked)
   * received before `cutoffs.settled`, and any received before `cutoffs.any`. A dead event of a
   * message still open stays until then: an operator may replay it, and reconciliation finds
   * the message without it.
   */
  pruneDeadEvents(
    cutoffs: DeadCutoffs,
    bound: BatchBound,
    options: { rememberSince: number },
  ): Promise<PruneBatch>;
  /** Forgets dedupe records of events received before `before`. */
  forgetEventIds(before: number, bound: BatchBound): Promise<PruneBatch>;
  /** Deletes final message sides whose last news is older than `before`, with their changes. */
  pruneMessages(
    before: number,
    bound: BatchBound,
  ): Promise<PruneBatch & { forgotten: ForgottenMessage[] }>;
  /**
   * Deletes notices of the status sink's outbox delivered before `before`, oldest delivery
   * first; an undelivered notice is never deleted, however old.
   */
  pruneNotices(before: number, bound: BatchBound): Promise<PruneBatch>;
  /**
   * Deletes invoices of the submission outbox settled before `before`, oldest first; an open
   * one is never deleted, however old.
   */
  pruneSubmissions(before: number, bound: BatchBound): Promise<PruneBatch>;
  /**
   * Gives up to `bound.limit` pages of freed space back to the file system (SQLite in
   * incremental auto_vacuum mode); PostgreSQL's autovacuum does this itself (count 0).
   */
  reclaim(bound: BatchBound): Promise<PruneBatch>;
}

/** A queued notice and its delivery state. */
export interface SinkOutboxRow {
  /** Queue order: a later notice of the same stream has a higher seq. */
  seq: number;
  notice: StatusNotice;
  createdAt: number;
  /** Failed deliveries so far. */
  attempts: number;
  nextAttemptAt: number;
  deliveredAt: number | null;
  lastError: string | null;
}

export interface SinkOutboxStats {
  /** Notices not delivered yet. */
  pending: number;
  /** Of those, the ones whose last delivery failed. */
  failing: number;
  /** createdAt of the oldest notice not delivered, or null. */
  oldestPendingAt: number | null;
}

/**
 * The status sink's outbox: notices queued with their status writes (StatusWrite.notice),
 * delivered one stream at a time. A stream is one message side and kind (messageId, transfer,
 * kind): only its oldest undelivered notice is ever handed out, so a sink sees each stream in
 * order, and a stream whose head keeps failing holds back no other.
 */
export interface SinkOutboxStore {
  /**
   * The head of each stream that is due (nextAttemptAt <= now) and not leased, oldest first,
   * at most `limit`; each is leased until now + leaseMs, so another process (a replica) does
   * not hand it out meanwhile.
   */
  claimDue(now: number, limit: number, leaseMs: number): Promise<SinkOutboxRow[]>;
  markDelivered(seq: number, now: number): Promise<void>;
  /** Counts a failed delivery, keeps its error, and makes the notice due at nextAttemptAt. */
  markFailed(seq: number, error: string, nextAttemptAt: number, now: number): Promise<void>;
  stats(): Promise<SinkOutboxStats>;
  /** Notices, newest first: all, the undelivered, or the failing (undelivered, attempts > 0). */
  list(options: { limit: number; state?: 'pending' | 'failing' }): Promise<SinkOutboxRow[]>;
  /** Deletes up to `limit` notices delivered before `before`; how many it deleted. */
  pruneDelivered(before: number, limit: number): Promise<number>;
}

/** Where an invoice sent through the submission outbox stands (docs/submissions.md#states). */
export type SubmissionState = 'queued' | 'sending' | 'unknown' | 'submitted' | 'refused';
export const SUBMISSION_STATES: readonly SubmissionState[] = [
  'queued',
  'sending',
  'unknown',
  'submitted',
  'refused',
];

/** Submitted or refused: final, no submitter works on it any more. */
export function isSettled(state: SubmissionState): boolean {
  return state === 'submitted' || state === 'refused';
}

export interface Submission {
  invoiceNo: string;
  /** The submit-invoice body, as JSON text; empty once settled (the hash stays). */
  body: string;
  bodyHash: string;
  state: SubmissionState;
  messageId: string | null;
  resolvedBy: SubmissionResolution | null;
  /** Attempts started: after one, the service is asked before another goes out. */
  attempts: number;
  firstAttemptAt: number | null;
  nextAttemptAt: number;
  lastError: string | null;
  createdAt: number;
  settledAt: number | null;
}

export interface NewSubmission {
  invoiceNo: string;
  body: string;
  bodyHash: string;
}

export interface SubmissionStats {
  queued: number;
  sending: number;
  unknown: number;
  /** When the oldest open submission was stored, or null when none is open. */
  oldestOpenAt: number | null;
}

/**
 * The submission outbox (docs/submissions.md): an invoice is stored before it is submitted,
 * and each attempt is recorded before its request leaves, so a crash or a lost reply never
 * makes the consumer submit an invoice blindly a second time. Settling (submitted, refused)
 * queues the outcome for the status sink in the same transaction.
 */
export interface SubmissionStore {
  /**
   * Stores a new submission, queued and due now; one with that invoice number stays as it is
   * (`added: false`), whatever its body: the caller compares the hash.
   */
  add(submission: NewSubmission, now: number): Promise<{ added: boolean; submission: Submission }>;
  get(invoiceNo: string): Promise<Submission | undefined>;
  /** Newest first, all or in one state. */
  list(options: { limit: number; state?: SubmissionState }): Promise<Submission[]>;
  stats(): Promise<SubmissionStats>;
  /** Open submissions that are due and not leased, oldest due first; each leased until now + leaseMs. */
  claimDue(now: number, limit: number, leaseMs: number): Promise<Submission[]>;
  /**
   * Records that an attempt starts (state sending, attempts + 1), durably, before its request
   * leaves. False when the submission is no longer open (the created webhook settled it).
   */
  markSending(invoiceNo: string, now: number): Promise<boolean>;
  /** Settles an open submission as submitted, with its notice; false if it was settled. */
  markSubmitted(
    invoiceNo: string,
    messageId: string,
    resolvedBy: SubmissionResolution,
    now: number,
  ): Promise<boolean>;
  /** Settles an open submission as refused, with its notice; false if it was settled. */
  markRefused(invoiceNo: string, reason: string, now: number): Promise<boolean>;
  /** An attempt or lookup that settled nothing: back to `state`, due at nextAttemptAt. */
  markRetry(
    invoiceNo: string,
    state: 'queued' | 'unknown',
    error: string,
    nextAttemptAt: number,
  ): Promise<void>;
  /**
   * The created webhook of an outbound message: settles the open submission of that invoice
   * number as submitted, if an attempt of it started no later than `slackMs` after the
   * message was received (a message older than the first attempt is another invoice's).
   */
  linkCreated(
    documentNo: string,
    messageId: string,
    timeReceived: number,
    slackMs: number,
    now: number,
  ): Promise<boolean>;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  readonly events: EventStore;
  readonly claims: ClaimStore;
  readonly messages: MessageStore;
  readonly retention: RetentionStore;
  readonly sinkOutbox: SinkOutboxStore;
  readonly submissions: SubmissionStore;
  /** Throws unless the store accepts a write right now (readiness). */
  checkWritable(): Promise<void>;
  /**
   * Calls `listener` when another process has stored new events (PostgreSQL: LISTEN/NOTIFY),
   * so a worker starts on them at once instead of at its next poll; returns the way to stop.
   * Absent where processes cannot tell each other (SQLite: the worker polls).
   */
  onNewEvents?(listener: () => void): () => void;
  close(): Promise<void>;
}

/** A store operation failed; the HTTP layer answers 503 so the service retries. */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A listing cursor that this store did not make (or that was tampered with). */
export class InvalidCursorError extends Error {
  override readonly name = 'InvalidCursorError';
}

/** The database's schema is not one this program can use (migrated by a newer version). */
export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}
