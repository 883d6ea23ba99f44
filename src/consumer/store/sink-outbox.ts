/**
 * The status sink's outbox: notices queued with their status writes (StatusWrite.notice in
 * messages.ts, and a submission's settlement in submissions.ts), delivered one stream at a
 * time by src/consumer/sink/sink-worker.ts. A stream is one message side and kind (messageId,
 * transfer, kind): only its oldest undelivered notice is ever handed out, so a sink sees each
 * stream in order, and a stream whose head keeps failing holds back no other.
 *
 * Each notice is queued with the trace context active at its status write (the handling of
 * the event, or the submission's settling, that queued it; null with tracing off), so its
 * delivery is a span of that invoice's trace (docs/operating.md#tracing). A store captures
 * that context itself when a notice is queued (activeTraceParent() in the calling context:
 * the status write's caller need not pass it).
 */
import type { StatusNotice } from './status-notice.ts';

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
  /** The W3C traceparent of the context the notice was queued in; null with tracing off. */
  traceParent: string | null;
}

export interface SinkOutboxStats {
  /** Notices not delivered yet. */
  pending: number;
  /** Of those, the ones whose last delivery failed. */
  failing: number;
  /** createdAt of the oldest notice not delivered, or null. */
  oldestPendingAt: number | null;
}

/** See the header of this file. */
export interface SinkOutboxStore {
  /**
   * The head of each stream that is due (nextAttemptAt <= now) and not leased, oldest first,
   * at most `limit`; each is leased until now + leaseMs, so another process (a replica) does
   * not hand it out meanwhile.
   */
  claimDue(now: number, limit: number, leaseMs: number): Promise<SinkOutboxRow[]>;
  /**
   * Marks notices delivered, all in one call (one commit): the notices one sink call took
   * (deliverMany() takes several). A seq delivered already is left as it is.
   */
  markDelivered(seqs: readonly number[], now: number): Promise<void>;
  /** Counts a failed delivery, keeps its error, and makes the notice due at nextAttemptAt. */
  markFailed(seq: number, error: string, nextAttemptAt: number, now: number): Promise<void>;
  stats(): Promise<SinkOutboxStats>;
  /** Notices, newest first: all, the undelivered, or the failing (undelivered, attempts > 0). */
  list(options: { limit: number; state?: 'pending' | 'failing' }): Promise<SinkOutboxRow[]>;
  /** Deletes up to `limit` notices delivered before `before`; how many it deleted. */
  pruneDelivered(before: number, limit: number): Promise<number>;
}

// What both implementations share: how a stored row reads back, and how much of an error is kept.

/** A sink's error is kept up to this many characters: enough to tell why, never a whole body. */
export const LAST_ERROR_MAX_CHARS = 2000;

export function boundedError(error: string): string {
  return error.length > LAST_ERROR_MAX_CHARS ? error.slice(0, LAST_ERROR_MAX_CHARS) : error;
}

/**
 * The stream a notice is ordered in (the sink_outbox columns message_id, transfer, kind): a
 * status change's message side and kind; a submission's invoice (`invoice:<invoiceNo>`, no
 * message id then being known for a refusal).
 */
export function noticeStream(notice: StatusNotice): {
  messageId: string;
  transfer: 'inbound' | 'outbound';
  kind: StatusNotice['kind'];
} {
  return notice.kind === 'submission'
    ? { messageId: `invoice:${notice.invoiceNo}`, transfer: 'outbound', kind: 'submission' }
    : { messageId: notice.messageId, transfer: notice.transfer, kind: notice.kind };
}

/** A row of the sink_outbox table, as both stores read it (`notice` parsed already). */
export interface SinkOutboxColumns {
  seq: number;
  notice: StatusNotice;
  created_at: number;
  attempts: number;
  next_attempt_at: number;
  delivered_at: number | null;
  last_error: string | null;
  trace_parent: string | null;
}

export function toOutboxRow(row: SinkOutboxColumns): SinkOutboxRow {
  return {
    seq: row.seq,
    notice: row.notice,
    createdAt: row.created_at,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    deliveredAt: row.delivered_at,
    lastError: row.last_error,
    traceParent: row.trace_parent,
  };
}

/** A stats statement's row, as both stores read it (`oldest`: the oldest pending's createdAt). */
export interface SinkOutboxStatsColumns {
  pending: number;
  failing: number;
  oldest: number | null;
}

/** SinkOutboxStats from the stats row (none: nothing pending). */
export function toOutboxStats(row: SinkOutboxStatsColumns | undefined): SinkOutboxStats {
  const stats = row ?? { pending: 0, failing: 0, oldest: null };
  return { pending: stats.pending, failing: stats.failing, oldestPendingAt: stats.oldest };
}
