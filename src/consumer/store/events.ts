/**
 * The inbox: one row per webhook event, the only state the HTTP ingress and the worker share.
 * Ingress inserts, the worker claims and settles (README.md says what each implementation
 * must guarantee).
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
 * A processing row whose message claim has ended (its holder died) is claimable again
 * (claims.ts).
 */
// The module itself, not the protocol's index: the SQLite writer thread loads this file, and
// the index would bring zod and every wire schema into that thread's heap (5.5 MB of it:
// docs/performance.md#memory).
import { isKnownAction } from '../../protocol/event-actions.ts';
import type { WebhookEnvelope } from '../../protocol/index.ts';
import type { ClaimRequest, MessageClaim } from './claims.ts';

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
  /**
   * The webhook request span's context as a W3C traceparent (tracing/trace-parent.ts), so the
   * worker's spans join the request's trace (migration 012). @default null: tracing was off
   */
  traceParent?: string | null;
}

/**
 * The inbox row of a verified envelope, as the ingress stores it: test events and unknown
 * actions are flagged, so the worker skips them. `body` is the request body exactly as signed.
 */
export function newEvent(
  envelope: WebhookEnvelope,
  body: Buffer,
  receivedAt: number,
  traceParent: string | null = null,
): NewEvent {
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
    traceParent,
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
  /** As stored; null when tracing was off at the insert, or the event predates migration 012. */
  traceParent: string | null;
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
   * (and nothing written) when the claim was lost meanwhile. `after`: the handler's last writes
   * (promises of this store's methods), still under way. The settlement is written only once
   * they have committed, and not at all if one fails (it then rejects with that error), so an
   * event is never done without them; a store may commit it with them (SQLite does when they
   * were asked for in the same turn of the event loop), which spares a commit per event.
   */
  settle(
    event: ClaimedEvent,
    settlement: Settlement,
    now: number,
    after?: readonly Promise<unknown>[],
  ): Promise<boolean>;
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

// What both implementations share: how a stored row reads back, and the counts of countOpen.

/** The columns of EventColumns, for a statement that names them (PostgreSQL's). */
export const EVENT_COLUMNS =
  'event_id, action, transfer, message_id, party, occurred_at, test, flag, body, received_at, ' +
  'state, attempts, next_attempt_at, locked_until, last_error, resolution, updated_at, trace_parent';

/** A row of the events table, as both stores read it (SQLite's 0 or 1 `test` made boolean). */
export interface EventColumns {
  event_id: string;
  action: string;
  transfer: 'inbound' | 'outbound';
  message_id: string;
  party: string;
  occurred_at: string;
  test: boolean;
  flag: EventFlag | null;
  body: Buffer;
  received_at: number;
  state: EventState;
  attempts: number;
  next_attempt_at: number;
  locked_until: number | null;
  last_error: string | null;
  resolution: string | null;
  updated_at: number;
  trace_parent: string | null;
}

export function toStoredEvent(row: EventColumns): StoredEvent {
  return {
    eventId: row.event_id,
    action: row.action,
    transfer: row.transfer,
    messageId: row.message_id,
    party: row.party,
    occurredAt: row.occurred_at,
    test: row.test,
    flag: row.flag,
    body: row.body,
    receivedAt: row.received_at,
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lockedUntil: row.locked_until,
    lastError: row.last_error,
    resolution: row.resolution,
    updatedAt: row.updated_at,
    traceParent: row.trace_parent,
  };
}

/** countOpen's answer from the counts of the states that have events (the others count 0). */
export function openCounts(
  rows: Iterable<{ state: OpenState; n: number }>,
): Record<OpenState, number> {
  const counts = Object.fromEntries(OPEN_STATES.map((s) => [s, 0])) as Record<OpenState, number>;
  for (const { state, n } of rows) counts[state] = n;
  return counts;
}
