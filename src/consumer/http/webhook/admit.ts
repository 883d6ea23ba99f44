/**
 * Admission of a webhook's body (admission.ts keeps the counts): over the connection limit, or
 * announcing more bytes than the in-flight budget has free, a request is refused unread with
 * 503 and Retry-After; the service retries.
 */
import type { Admission, BodyBudget } from '../admission.ts';
import { Rejection } from './rejection.ts';

/** Seconds a refused-for-capacity client is asked to wait; the service retries anyway. */
export const RETRY_AFTER_SECONDS = 1;

/** The body's budget, or the 503 that refuses it. */
export function admitBody(
  admission: Admission,
  declared: number | undefined,
): BodyBudget | Rejection {
  if (admission.overConnectionLimit()) return busy(true);
  // The bytes the body sends are counted as they arrive; one announcing more than is free
  // now is refused before any is read.
  return admission.admit(declared ?? 0) ?? busy(false);
}

/**
 * The 503 of a consumer at its limits. Over the connection limit this connection is one too
 * many: it is closed after the answer.
 */
export function busy(oneConnectionTooMany: boolean): Rejection {
  return new Rejection(
    'over_capacity',
    {
      status: 503,
      title: 'Too busy',
      detail: oneConnectionTooMany
        ? 'The consumer has too many open connections (WEBHOOK_MAX_CONNECTIONS); retry shortly.'
        : 'The consumer holds as many body bytes as it allows (WEBHOOK_MAX_INFLIGHT_BYTES); retry shortly.',
    },
    {
      headers: {
        'Retry-After': String(RETRY_AFTER_SECONDS),
        ...(oneConnectionTooMany ? { Connection: 'close' } : {}),
      },
    },
  );
}
