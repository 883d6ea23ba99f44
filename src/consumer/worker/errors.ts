import { ApiError } from '../api/index.ts';

/** The event itself is unusable (a status event without formerValue, say): retrying won't help. */
export class MalformedEventError extends Error {
  override readonly name = 'MalformedEventError';
}

/**
 * 401 and 403 say the consumer's credentials are wrong (API_TOKEN), not that the event is:
 * retrying until an operator fixes the token beats dead-lettering every event meanwhile.
 */
const CONFIGURATION_STATUSES: ReadonlySet<number> = new Set([401, 403]);

/**
 * The one place the worker decides retry or dead-letter. A transient API or network failure
 * is retried; a rejection by the service (4xx other than 429, 401 and 403) or a malformed
 * event is not.
 */
export function isPermanent(error: unknown): boolean {
  if (error instanceof MalformedEventError) return true;
  if (error instanceof ApiError) {
    return !error.retryable && !CONFIGURATION_STATUSES.has(error.status ?? 0);
  }
  return false;
}

export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    return `${error.message}${error.status === undefined ? '' : ` (HTTP ${error.status})`}`;
  }
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
