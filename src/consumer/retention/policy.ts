/**
 * What retention keeps, and for how long (RETENTION_* in the configuration). Every period is
 * counted from when the consumer received the event, or last heard of the message.
 */
import {
  DELIVERY_LOG_RETENTION_MS,
  WEBHOOK_RETRY_WINDOW_MS,
} from '../../protocol/retry-schedule.ts';

export const DAY_MS = 24 * 60 * 60_000;

export interface RetentionPolicy {
  /** Raw bodies of finished events; 0 drops a body as soon as its event is finished. */
  bodyDays: number;
  /**
   * Rows of finished events (done, skipped) and their status changes; also of dead events
   * whose message is settled (acknowledged, or final at the service), and the status sink's
   * delivered notices (counted from their delivery).
   */
  eventDays: number;
  /** Rows of any dead event, its message settled or not: at least eventDays. */
  deadDays: number;
  /** EventIds of deleted events, the dedupe record: at least MIN_DEDUPE_DAYS. */
  dedupeDays: number;
  /** Final messages' records (statuses, import record), and the importer's forget hook. */
  messageDays: number;
}

/**
 * The service may redeliver an event for as long as its delivery log keeps it, and its retry
 * schedule may still be running at the end of that: an eventId forgotten sooner could be
 * stored and handled again.
 */
export const MIN_DEDUPE_DAYS = Math.ceil(
  (DELIVERY_LOG_RETENTION_MS + WEBHOOK_RETRY_WINDOW_MS) / DAY_MS,
);

export const DEFAULT_RETENTION: RetentionPolicy = {
  bodyDays: 30,
  eventDays: 90,
  deadDays: 180,
  dedupeDays: 200,
  messageDays: 400,
};

/** The cut-off times (ms since the epoch) of a policy at `now`. */
export function cutoffs(policy: RetentionPolicy, now: number) {
  return {
    bodies: now - policy.bodyDays * DAY_MS,
    events: now - policy.eventDays * DAY_MS,
    deadEvents: now - policy.deadDays * DAY_MS,
    eventIds: now - policy.dedupeDays * DAY_MS,
    messages: now - policy.messageDays * DAY_MS,
  };
}
