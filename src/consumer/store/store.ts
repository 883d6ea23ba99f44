/**
 * The inbox and the consumer's local view of messages. The inbox is the only state the HTTP
 * ingress and the worker share: ingress inserts, the worker claims and settles.
 *
 * Event states:
 *   pending    -> processing   claimed by a worker (attempts + 1, locked until a lease ends)
 *   processing -> done         handled
 *   processing -> skipped      test event or unknown action: stored, never imported
 *   processing -> pending      failed, retried at next_attempt_at
 *   processing -> dead         failed for the last allowed time; an operator may replay it
 *   dead|done|skipped -> pending  replay
 * A processing row whose lease has ended belongs to a worker that died; it is claimable again.
 */

export type EventState = 'pending' | 'processing' | 'done' | 'skipped' | 'dead';
export const EVENT_STATES: readonly EventState[] = [
  'pending',
  'processing',
  'done',
  'skipped',
  'dead',
];

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

export interface StoredEvent extends NewEvent {
  state: EventState;
  attempts: number;
  nextAttemptAt: number;
  lockedUntil: number | null;
  lastError: string | null;
  updatedAt: number;
}

export type InsertOutcome = 'inserted' | 'duplicate';

export interface EventStore {
  /** Resolves only once the row is durably committed; a duplicate eventId changes nothing. */
  insert(event: NewEvent): Promise<InsertOutcome>;
  get(eventId: string): Promise<StoredEvent | undefined>;
  /** Newest first. */
  list(query: { state?: EventState | undefined; limit: number }): Promise<StoredEvent[]>;
  countByState(): Promise<Record<EventState, number>>;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  readonly events: EventStore;
  /** Throws unless the store accepts a write right now (readiness). */
  checkWritable(): Promise<void>;
  close(): Promise<void>;
}

/** A store operation failed; the HTTP layer answers 503 so the service retries. */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
