/**
 * Delays before retry 1 to 9 of a failed webhook attempt (docs/retries.md#retry-schedule): nine retries
 * over about two hours, after which the event is exhausted.
 */
const MINUTE = 60_000;
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = Object.freeze([
  MINUTE,
  MINUTE,
  MINUTE,
  MINUTE,
  MINUTE,
  10 * MINUTE,
  10 * MINUTE,
  30 * MINUTE,
  60 * MINUTE,
]);

/** Total span of the schedule: a consumer down longer than this misses events for good. */
export const WEBHOOK_RETRY_WINDOW_MS = WEBHOOK_RETRY_DELAYS_MS.reduce((sum, d) => sum + d, 0);

/** Retention of events in the provider's delivery log (six months). */
export const DELIVERY_LOG_RETENTION_MS = 183 * 24 * 60 * MINUTE;

/** Validity of a rotated-out signing secret (docs/signature.md#verify-every-request). */
export const OLD_SECRET_VALIDITY_MS = 24 * 60 * MINUTE;
