/**
 * The store contract, one file per concern, each implemented once for SQLite (sqlite/) and
 * once for PostgreSQL (postgres/), named after it:
 *
 *   events.ts       the inbox: ingress inserts, the worker claims and settles
 *   claims.ts       one message, one handler: the lease whoever handles a message holds
 *   messages.ts     the consumer's view of each message side: statuses, import, acknowledgement
 *   sink-outbox.ts  status changes queued for the status sink, in order per stream
 *   submissions.ts  invoices the ERP sends through the submission outbox
 *   retention.ts    what retention may delete, in bounded batches
 *
 * Every method is asynchronous, so an implementation may commit off the event loop (a writer
 * thread) or over the network (PostgreSQL); what each must guarantee is written on it and in
 * README.md. This file composes them into the `Store` that open-store.ts returns, and holds
 * the errors every concern may throw.
 */
import type { ClaimStore } from './claims.ts';
import type { EventStore } from './events.ts';
import type { MessageStore } from './messages.ts';
import type { RetentionStore } from './retention.ts';
import type { SinkOutboxStore } from './sink-outbox.ts';
import type { SubmissionStore } from './submissions.ts';

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
