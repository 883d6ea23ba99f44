/**
 * One HTTP exchange with the messaging API, with the client's timeout and retry policy.
 *
 * Every attempt has a deadline covering the headers and the whole body, so a server that
 * hangs, or stops in the middle of a body, costs at most `timeoutMs`. Transient failures
 * (network errors, timeouts, 5xx, 429) are retried with capped, jittered backoff, honouring
 * Retry-After on 429 and 503; any other 4xx is final at once. When the attempts run out the
 * ApiError says `retryable: true`, so the worker knows to try the event again later.
 */
import { Pool } from 'undici';
import { ApiError, ERROR_BODY_LIMIT, parseProblem } from './api-error.ts';
import type { ResolvedApiClientOptions } from './options.ts';
import {
  backoffDelay,
  classifyTransportError,
  honoursRetryAfter,
  isRetryableStatus,
  parseRetryAfter,
  type TransportFailure,
} from './retry.ts';

export type QueryValue = string | number | boolean | undefined;

export interface ApiRequest {
  method: 'GET' | 'POST';
  /** Path below the base URL, with path parameters already encoded. */
  path: string;
  /** Entries whose value is `undefined` are left out. */
  query?: Record<string, QueryValue>;
  /** Sent as JSON when present. */
  json?: unknown;
  /**
   * `idempotent`: retry every transient failure. `unsent-only`: the call must not be repeated
   * once the service may have seen it; retry only failures that happened before the request
   * left (connection refused, DNS) and 429, with which the service says it did not process it.
   */
  retry: 'idempotent' | 'unsent-only';
}

export interface ApiResponse {
  status: number;
  contentType: string | undefined;
  /** The Date header: when the service made the answer, on its own clock. */
  date: string | undefined;
  body: Buffer;
}

export interface Transport {
  send(request: ApiRequest): Promise<ApiResponse>;
  close(): Promise<void>;
}

type AttemptOutcome =
  | { kind: 'response'; response: ApiResponse; retryAfter: string | undefined }
  | { kind: 'failure'; failure: TransportFailure; text: string; error: unknown };

export function createTransport(options: ResolvedApiClientOptions): Transport {
  // One keep-alive pool per base URL: the worker makes several calls per message.
  const pool = new Pool(options.origin);
  const headers = {
    authorization: `Bearer ${options.token}`,
    accept: 'application/json, application/problem+json;q=0.9, */*;q=0.8',
  };

  async function attemptOnce(request: ApiRequest, target: string): Promise<AttemptOutcome> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), options.timeoutMs);
    try {
      const answer = await pool.request({
        method: request.method,
        path: target,
        headers:
          request.json === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        body: request.json === undefined ? null : JSON.stringify(request.json),
        signal: controller.signal,
      });
      // Read under the same deadline: a body that stalls halfway is a timeout too.
      const body = Buffer.from(await answer.body.arrayBuffer());
      return {
        kind: 'response',
        response: {
          status: answer.statusCode,
          contentType: header(answer.headers, 'content-type'),
          date: header(answer.headers, 'date'),
          body,
        },
        retryAfter: header(answer.headers, 'retry-after'),
      };
    } catch (error) {
      if (controller.signal.aborted) {
        // The request was on its way or answered in part: the service may have acted on it.
        return {
          kind: 'failure',
          failure: 'maybe_sent',
          text: `no complete answer within ${options.timeoutMs} ms`,
          error,
        };
      }
      return {
        kind: 'failure',
        failure: classifyTransportError(error),
        text: error instanceof Error ? error.message || String(error) : String(error),
        error,
      };
    } finally {
      clearTimeout(timer);
    }
  }

  async function send(request: ApiRequest): Promise<ApiResponse> {
    const shownPath = describePath(request);
    const target = options.pathPrefix + shownPath;
    for (let attempt = 0; ; attempt++) {
      const outcome = await attemptOnce(request, target);
      if (outcome.kind === 'response' && isSuccess(outcome.response.status))
        return outcome.response;

      const transient = isTransient(outcome, request.retry);
      if (!transient || attempt >= options.maxRetries) {
        throw toApiError(outcome, request, shownPath, transient, attempt + 1);
      }
      const status = outcome.kind === 'response' ? outcome.response.status : undefined;
      const askedFor =
        outcome.kind === 'response' && status !== undefined && honoursRetryAfter(status)
          ? parseRetryAfter(outcome.retryAfter, Date.now())
          : undefined;
      const delayMs = Math.min(
        options.retryMaxDelayMs,
        askedFor ??
          backoffDelay(attempt, {
            base: options.retryBaseDelayMs,
            max: options.retryMaxDelayMs,
            random: options.random,
          }),
      );
      options.logger?.warn(
        {
          method: request.method,
          path: shownPath,
          ...(status === undefined
            ? { error: outcome.kind === 'failure' ? outcome.text : undefined }
            : { status }),
          attempt: attempt + 1,
          delayMs,
        },
        'messaging API call failed, retrying',
      );
      await options.sleep(delayMs);
    }
  }

  return { send, close: () => pool.close() };
}

function isTransient(outcome: AttemptOutcome, policy: ApiRequest['retry']): boolean {
  if (outcome.kind === 'response') {
    const { status } = outcome.response;
    if (!isRetryableStatus(status)) return false;
    return policy === 'idempotent' || status === 429;
  }
  if (outcome.failure === 'not_sent') return true;
  return outcome.failure === 'maybe_sent' && policy === 'idempotent';
}

function toApiError(
  outcome: AttemptOutcome,
  request: ApiRequest,
  path: string,
  retryable: boolean,
  attempts: number,
): ApiError {
  const call = `${request.method} ${path}`;
  const tries = attempts > 1 ? ` (after ${attempts} attempts)` : '';
  // A failure the client would retry for an idempotent call but must not repeat for this one.
  const unsafe =
    !retryable && request.retry === 'unsent-only' && isTransient(outcome, 'idempotent')
      ? '; not retried because the service may have acted on it: check before sending again'
      : '';
  if (outcome.kind === 'failure') {
    return new ApiError(`${call} failed: ${outcome.text}${tries}${unsafe}`, {
      status: undefined,
      body: outcome.text,
      method: request.method,
      path,
      retryable,
      cause: outcome.error,
    });
  }
  const { status, contentType } = outcome.response;
  const full = outcome.response.body.toString('utf8');
  const text = full.slice(0, ERROR_BODY_LIMIT);
  const problem = parseProblem(contentType, full);
  const summary = problem?.detail ?? problem?.title ?? (text.slice(0, 200) || '(empty body)');
  return new ApiError(`${call} answered ${status}: ${summary}${tries}${unsafe}`, {
    status,
    body: text,
    method: request.method,
    path,
    retryable,
    ...(problem === undefined ? {} : { problem }),
  });
}

/** Path and query below the base URL, as errors and log lines show it. */
export function describePath(request: ApiRequest): string {
  return request.path + queryString(request.query);
}

function queryString(query: ApiRequest['query']): string {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) params.set(name, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

function header(headers: Record<string, string | string[] | undefined>, name: string) {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Redirects are not followed: the API has none, and a redirect would carry the token away. */
function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}
