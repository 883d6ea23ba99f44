/**
 * Retry policy of the messaging API client: which failures are worth another attempt, and how
 * long to wait before it. Pure functions, so the policy can be tested without a server.
 */

export interface BackoffOptions {
  /** Delay scale of the first retry, in milliseconds. */
  base: number;
  /** No delay is ever longer than this. */
  max: number;
  /** A number in [0, 1), like Math.random. */
  random: () => number;
}

/**
 * Capped exponential backoff with full jitter: a uniform delay in [0, min(max, base * 2^attempt)).
 * Full jitter spreads the retries of many clients that failed at the same moment (a provider
 * restart) instead of having them come back in lockstep.
 * https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/
 *
 * `attempt` counts retries from 0 (the wait before the first retry).
 */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
  const max = Math.max(0, options.max);
  const ceiling = Math.min(max, Math.max(0, options.base) * 2 ** Math.max(0, attempt));
  // Clamped because an injected random may return exactly 1 or stray outside [0, 1).
  const fraction = Math.min(1, Math.max(0, options.random()));
  const delay = Math.floor(ceiling * fraction);
  return Number.isFinite(delay) ? delay : 0;
}

/**
 * The wait a Retry-After header asks for, in milliseconds: either delay-seconds or an HTTP
 * date (RFC 9110 section 10.2.3). `undefined` when the header is absent or unreadable, so the
 * caller falls back to its own backoff; a date in the past means "now" (0).
 */
export function parseRetryAfter(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Date.parse accepts plain numbers and other loose forms too; an HTTP date always names a
  // weekday or month, so insist on a letter to keep "1.5" or "-3" from being read as dates.
  if (!/[a-z]/i.test(value)) return undefined;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** 5xx and 429 are transient; every other 4xx will fail the same way again. */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 429;
}

/** Statuses whose Retry-After header is honoured (RFC 9110 sections 10.2.3, 15.6.4; RFC 6585). */
export function honoursRetryAfter(status: number): boolean {
  return status === 429 || status === 503;
}

/**
 * Error codes raised before the request left this machine: the connection was never
 * established, so the service cannot have seen it. Only these are safe to retry for a call
 * that is not idempotent.
 */
const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Network errors after a connection existed: the request may or may not have arrived. */
const MAYBE_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * How a thrown transport error is classified:
 * - `not_sent`: the connection failed, safe to retry any call;
 * - `maybe_sent`: a network failure mid-request, safe to retry idempotent calls only;
 * - `other`: not a network failure (a bug, the client closed); retrying would not help.
 */
export type TransportFailure = 'not_sent' | 'maybe_sent' | 'other';

export function classifyTransportError(error: unknown): TransportFailure {
  const codes = errorCodes(error, 0);
  if (codes.some((code) => NOT_SENT_CODES.has(code))) return 'not_sent';
  if (codes.some((code) => MAYBE_SENT_CODES.has(code))) return 'maybe_sent';
  return 'other';
}

/**
 * The codes of an error and of what it wraps: undici puts the socket error in `cause`, and a
 * connection tried on IPv4 and IPv6 at once fails with an AggregateError of both.
 */
function errorCodes(error: unknown, depth: number): string[] {
  if (depth > 4 || typeof error !== 'object' || error === null) return [];
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  const nested = Array.isArray(errors) ? errors : [];
  return [
    ...(typeof code === 'string' ? [code] : []),
    ...errorCodes(cause, depth + 1),
    ...nested.flatMap((inner: unknown) => errorCodes(inner, depth + 1)),
  ];
}
