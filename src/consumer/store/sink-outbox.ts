/**
 * What both stores share of the status sink's outbox (SinkOutboxStore in store.ts): how a
 * stored row reads back, and how much of a delivery's error is kept.
 */
import type { StatusNotice } from '../sink/status-notice.ts';
import type { SinkOutboxRow } from './store.ts';

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
  };
}
