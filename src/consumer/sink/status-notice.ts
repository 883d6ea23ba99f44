/**
 * What the status sink hears: one status change of one message side, as the consumer applied
 * it (docs/status-sink.md). The consumer queues a notice in its store's outbox in the same
 * transaction as the status itself, and delivers the queue to the sink once per notice, in
 * order per message side and kind (sink-worker.ts).
 */
import type { StatusKind, ValidationResult } from '../../protocol/index.ts';

export interface StatusNotice {
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
