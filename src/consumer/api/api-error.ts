/** RFC 9457 problem details, the error format of the messaging API (docs/decisions.md). */
import { API_JSON_LIMITS, parseBoundedJson } from '../../protocol/index.ts';

export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
}

export interface ApiErrorDetails {
  /** HTTP status of the answer; `undefined` when no answer came (network error or timeout). */
  status: number | undefined;
  /** The start of the response body, or the network error's text. */
  body: string;
  method: string;
  /** Path and query of the call, never the base URL's credentials or the token. */
  path: string;
  retryable: boolean;
  problem?: Problem;
  cause?: unknown;
}

/**
 * A failed messaging API call. The worker maps it in one place: `retryable` errors are
 * transient (network, timeout, 5xx, 429, after the client's own retries ran out) and the
 * event is tried again later; the others will fail the same way again.
 *
 * `retryable` means "repeating the same call is safe and may succeed". A submit-invoice that
 * failed after the request may have reached the service is therefore `retryable: false`
 * even on a 5xx: repeating it could create a second invoice.
 */
export class ApiError extends Error {
  // Widened to string: ApiDeadlineError names itself.
  override readonly name: string = 'ApiError';
  readonly status: number | undefined;
  readonly body: string;
  readonly method: string;
  readonly path: string;
  readonly retryable: boolean;
  readonly problem: Problem | undefined;

  constructor(message: string, details: ApiErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.status = details.status;
    this.body = details.body;
    this.method = details.method;
    this.path = details.path;
    this.retryable = details.retryable;
    this.problem = details.problem;
  }
}

/** How much of an error body is kept: enough to diagnose, not a whole HTML error page. */
export const ERROR_BODY_LIMIT = 2_000;

/**
 * Reads the problem fields from an error body. Only fields of the right type are kept, so a
 * server that answers with some other JSON does not produce a misleading problem. A body over
 * the JSON shape limits (protocol/json-shape.ts) is not parsed: it is no problem body, and its
 * start is still kept as text.
 */
export function parseProblem(contentType: string | undefined, body: string): Problem | undefined {
  if (contentType === undefined || !/^application\/(problem\+)?json\b/i.test(contentType)) {
    return undefined;
  }
  let value: unknown;
  try {
    value = parseBoundedJson(body, API_JSON_LIMITS);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const problem: Problem = {};
  if (typeof record.type === 'string') problem.type = record.type;
  if (typeof record.title === 'string') problem.title = record.title;
  if (typeof record.status === 'number') problem.status = record.status;
  if (typeof record.detail === 'string') problem.detail = record.detail;
  return Object.keys(problem).length > 0 ? problem : undefined;
}

/**
 * A call given up because the API was too slow (issue 26): no complete answer within the call's
 * deadline (`API_DEADLINE_MS`, more for a document), or a body slower than
 * `API_MIN_BYTES_PER_SECOND`. Not retried within the call, so the worker's slot is freed and
 * the worker's backoff asks again later. `retryable` keeps the "maybe sent" rule: true for an
 * idempotent call, false for submit-invoice, which may have reached the service.
 */
export class ApiDeadlineError extends ApiError {
  override readonly name = 'ApiDeadlineError';
  /** Which limit was passed. */
  readonly limit: 'deadline' | 'min_rate';
  /** The deadline in ms, or the minimum rate in bytes per second. */
  readonly limitValue: number;

  constructor(
    message: string,
    details: ApiErrorDetails & { limit: 'deadline' | 'min_rate'; limitValue: number },
  ) {
    super(message, details);
    this.limit = details.limit;
    this.limitValue = details.limitValue;
  }
}
