/**
 * What the status sink hears: one status change of one message side, as the consumer applied
 * it (docs/status-sink.md). The consumer queues a notice in its store's outbox in the same
 * transaction as the status itself, and delivers the queue to the sink once per notice, in
 * order per message side and kind (sink-worker.ts).
 */
import type { StatusKind, ValidationResult } from '../../protocol/index.ts';

export interface StatusChangeNotice {
  /**
   * The idempotency key: the same change always has the same id, so a sink that sees an id
   * twice (a crash between its answer and the outbox's record) ignores the second.
   */
  id: string;
  messageId: string;
  transfer: 'inbound' | 'outbound';
  kind: StatusKind;
  /** The value the consumer held before, or null when it held none. */
  formerValue: string | null;
  newValue: string;
  /**
   * ISO 8601 UTC with milliseconds: when the change occurred on the service (a status event's
   * occurredAt), or the time up to which a fetched descriptor is current (a refresh).
   */
  occurredAt: string;
  /** `event`: a status event said so; `refresh`: the service's descriptor said so. */
  source: 'event' | 'refresh';
  /** The status event's properties (errorCode, errorMessage, paidAmount, ...), as sent. */
  properties: Record<string, string> | null;
  /** validationResults parsed, errors first; null when the change carried none. */
  validationResults: ValidationResult[] | null;
}

/** How the consumer learned a submitted invoice's message id (docs/submissions.md#states). */
export type SubmissionResolution = 'reply' | 'lookup' | 'created';

/**
 * What became of an invoice the ERP sent through the submission outbox (docs/submissions.md):
 * submitted (the service created message `messageId`) or refused (the service answered it with
 * a 4xx; `properties.reason` says why). One notice per invoice, since either is final; later
 * notices of that message are status changes like any other.
 */
export interface SubmissionNotice {
  /** `submission:<invoiceNo>`: one per invoice. */
  id: string;
  kind: 'submission';
  /** The ERP's invoice number (invoice.invoiceNo), the outbox's key. */
  invoiceNo: string;
  /** The message the service created for it; null when it was refused. */
  messageId: string | null;
  transfer: 'outbound';
  formerValue: null;
  newValue: 'submitted' | 'refused';
  /** ISO 8601 UTC with milliseconds: when the consumer learned it. */
  occurredAt: string;
  source: 'submission';
  /**
   * `resolvedBy`: how the consumer learned the message id: `reply` (the submit's answer),
   * `lookup` (GET /messages, after a reply that was lost) or `created` (the created webhook).
   * `reason`: the service's refusal.
   */
  properties: { resolvedBy: SubmissionResolution } | { reason: string };
  validationResults: null;
}

/** What the sink receives: a status change, or a submission's outcome (`kind` tells which). */
export type StatusNotice = StatusChangeNotice | SubmissionNotice;

export function submissionNotice(
  invoiceNo: string,
  outcome: { messageId: string; resolvedBy: SubmissionResolution } | { reason: string },
  now: number,
): SubmissionNotice {
  const submitted = 'messageId' in outcome;
  return {
    id: `submission:${invoiceNo}`,
    kind: 'submission',
    invoiceNo,
    messageId: submitted ? outcome.messageId : null,
    transfer: 'outbound',
    formerValue: null,
    newValue: submitted ? 'submitted' : 'refused',
    occurredAt: new Date(now).toISOString(),
    source: 'submission',
    properties: submitted ? { resolvedBy: outcome.resolvedBy } : { reason: outcome.reason },
    validationResults: null,
  };
}
