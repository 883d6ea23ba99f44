/**
 * The submission outbox (docs/submissions.md): an invoice is stored before it is submitted,
 * and each attempt is recorded before its request leaves, so a crash or a lost reply never
 * makes the consumer submit an invoice blindly a second time. Settling (submitted, refused)
 * queues the outcome for the status sink in the same transaction (sink-outbox.ts).
 *
 * A submission is stored with the trace context of the request that stored it (`add`: the
 * admin request's), and its submits, lookups and settling are spans of that trace
 * (docs/operating.md#tracing); a store takes that context itself from the calling context
 * (activeTraceParent()), as it takes a settling's for the notice it queues.
 */
import type { SubmissionResolution } from './status-notice.ts';

export type { SubmissionResolution };

/**
 * How much earlier than an invoice's first attempt its message may be stamped received: the
 * service's clock against ours (NTP keeps them within a second), and the whole seconds of
 * timeReceived. A message older than that is another invoice that used the number before;
 * invoice numbers are the ERP's keys, so such a message means the ERP reused one.
 */
export const SUBMISSION_SLACK_MS = 2 * 60_000;

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
  /** The W3C traceparent of the request that stored it; null with tracing off. */
  traceParent: string | null;
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

// What both implementations share: how a stored row reads back.

/** A row of the submissions table, as both stores read it. */
export interface SubmissionColumns {
  invoice_no: string;
  body: string;
  body_hash: string;
  state: SubmissionState;
  message_id: string | null;
  resolved_by: SubmissionResolution | null;
  attempts: number;
  first_attempt_at: number | null;
  next_attempt_at: number;
  locked_until: number | null;
  last_error: string | null;
  created_at: number;
  settled_at: number | null;
  trace_parent: string | null;
}

export function toSubmission(row: SubmissionColumns): Submission {
  return {
    invoiceNo: row.invoice_no,
    body: row.body,
    bodyHash: row.body_hash,
    state: row.state,
    messageId: row.message_id,
    resolvedBy: row.resolved_by,
    attempts: row.attempts,
    firstAttemptAt: row.first_attempt_at,
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error,
    createdAt: row.created_at,
    settledAt: row.settled_at,
    traceParent: row.trace_parent,
  };
}

/** The row of a stats statement, as both stores read it (`oldest`: the oldest open's createdAt). */
export interface SubmissionStatsColumns {
  queued: number;
  sending: number;
  unknown: number;
  oldest: number | null;
}

/** SubmissionStats from the stats row (none: nothing open). */
export function toSubmissionStats(row: SubmissionStatsColumns | undefined): SubmissionStats {
  const stats = row ?? { queued: 0, sending: 0, unknown: 0, oldest: null };
  return {
    queued: stats.queued,
    sending: stats.sending,
    unknown: stats.unknown,
    oldestOpenAt: stats.oldest,
  };
}
