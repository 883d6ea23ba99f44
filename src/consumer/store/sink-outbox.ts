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
