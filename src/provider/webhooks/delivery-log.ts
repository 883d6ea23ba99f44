/**
 * The delivery log: one record per event with every attempt, kept DELIVERY_LOG_RETENTION_MS
 * (six months, docs/retries.md#retry-schedule). Pruning is lazy, on each write and read, because a simulator
 * has no housekeeping job and a timer per record would keep the clock busy for months.
 */
import { DELIVERY_LOG_RETENTION_MS, type WebhookEnvelope } from '../../protocol/index.ts';
import type { Clock, Timer } from '../clock.ts';
import type { EventRouting } from '../events.ts';
import type { AttemptView, DeliveryDetail, DeliveryState, DeliveryView } from './types.ts';

export interface Attempt {
  at: number;
  /** The request headers of the attempt, credential redacted. */
  headers: Record<string, string>;
  statusCode?: number;
  error?: string;
  responseTimeMs: number;
  bodyStart: string;
}

export interface DeliveryRecord {
  /** Insertion order; breaks ties between events logged at the same clock millisecond. */
  sequence: number;
  /** Stored unchanged so retries and redeliveries carry the same eventId and occurredAt. */
  envelope: WebhookEnvelope;
  /** The envelope serialized once; every attempt signs and sends these exact bytes. */
  body: string;
  routing: EventRouting;
  state: DeliveryState;
  reason?: string;
  endpointId?: string;
  attempts: Attempt[];
  /** Attempts made in the current delivery round (the first one, or the last redelivery). */
  roundAttempts: number;
  nextAttemptAt?: number;
  timer?: Timer;
  loggedAt: number;
}

export interface DeliveryFilter {
  state?: DeliveryState;
  eventId?: string;
  messageId?: string;
}

export function createDeliveryLog(options: { clock: Clock }) {
  const records = new Map<string, DeliveryRecord>();
  let sequence = 0;

  /**
   * Drops records older than the retention. The map iterates in insertion order, which is the
   * order of loggedAt (the clock only moves forward), so the walk stops at the first record young
   * enough to keep: each call costs what it removes, not the whole log (a walk over every
   * record on every write made a long run quadratic: 10,000 events cost seconds of CPU).
   */
  function prune(): void {
    const cutoff = options.clock.now() - DELIVERY_LOG_RETENTION_MS;
    for (const [eventId, record] of records) {
      if (record.loggedAt >= cutoff) return;
      // A pending record is still being retried; it cannot be six months old anyway.
      if (record.state !== 'pending') records.delete(eventId);
    }
  }

  return {
    nextSequence: () => sequence++,
    has: (eventId: string) => records.has(eventId),
    add(record: DeliveryRecord): void {
      prune();
      records.set(record.envelope.eventId, record);
    },
    get(eventId: string): DeliveryRecord | undefined {
      prune();
      return records.get(eventId);
    },
    /** A participant's records, newest first. */
    list(party: string, filter: DeliveryFilter = {}): DeliveryRecord[] {
      prune();
      return [...records.values()]
        .filter(
          (record) =>
            record.envelope.party === party &&
            (filter.state === undefined || record.state === filter.state) &&
            (filter.eventId === undefined || record.envelope.eventId === filter.eventId) &&
            (filter.messageId === undefined || record.envelope.messageId === filter.messageId),
        )
        .sort((a, b) => b.loggedAt - a.loggedAt || b.sequence - a.sequence);
    },
    pending(): DeliveryRecord[] {
      return [...records.values()].filter((record) => record.state === 'pending');
    },
  };
}

export type DeliveryLog = ReturnType<typeof createDeliveryLog>;

export function toDeliveryView(record: DeliveryRecord): DeliveryView {
  const { envelope } = record;
  const view: DeliveryView = {
    eventId: envelope.eventId,
    party: envelope.party,
    action: envelope.action,
    transfer: envelope.transfer,
    messageId: envelope.messageId,
    occurredAt: envelope.occurredAt,
    state: record.state,
    attempts: record.attempts.map(toAttemptView),
  };
  if (record.reason !== undefined) view.reason = record.reason;
  if (record.endpointId !== undefined) view.endpointId = record.endpointId;
  if (record.nextAttemptAt !== undefined) {
    view.nextAttemptAt = new Date(record.nextAttemptAt).toISOString();
  }
  return view;
}

/** The view with the exact bytes every attempt sent, for one event's page. */
export function toDeliveryDetail(record: DeliveryRecord): DeliveryDetail {
  return { ...toDeliveryView(record), body: record.body };
}

function toAttemptView(attempt: Attempt): AttemptView {
  const view: AttemptView = {
    at: new Date(attempt.at).toISOString(),
    headers: { ...attempt.headers },
    responseTimeMs: attempt.responseTimeMs,
    bodyStart: attempt.bodyStart,
  };
  if (attempt.statusCode !== undefined) view.statusCode = attempt.statusCode;
  if (attempt.error !== undefined) view.error = attempt.error;
  return view;
}
