/**
 * What both stores share of the submission outbox (SubmissionStore in store.ts): how a stored
 * row reads back.
 */
import type { Submission, SubmissionResolution, SubmissionState } from './store.ts';

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
  };
}
