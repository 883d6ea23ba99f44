/**
 * One HTTP exchange with the messaging API, with the client's timeout and retry policy.
 *
 * Three bounds on time (deadline.ts says why all three): undici waits at most `timeoutMs` for
 * the headers and for each next piece of a body; a body must average `minBytesPerSecond` over
 * each `timeoutMs`; and the whole call, every attempt and the waits between them, has a
 * deadline (`deadlineMs`, more for a document: deadline.ts). A call that passes the deadline
 * or the rate is an ApiDeadlineError at once, not retried here: the worker's slot goes to
 * other messages, and its backoff asks again later. Other transient failures (network errors,
 * per-wait timeouts, 5xx, 429) are retried here with capped, jittered backoff, honouring
 * Retry-After on 429 and 503, while the deadline leaves time; any other 4xx is final at once.
 * When the attempts run out the ApiError says `retryable: true`, so the worker knows to try the
 * event again later.
 *
 * This file is the loop over attempts; one attempt is attempt.ts, reading its body within its
 * bounds read-body.ts, whether to try again attempt-outcome.ts, and the error to throw
 * to-api-error.ts.
 */
import { Pool } from 'undici';
import { printableText } from '../text/error-text.ts';
import { createAttempt } from './attempt.ts';
import {
  type ApiResponse,
  type AttemptOutcome,
  isSuccess,
  isTransient,
} from './attempt-outcome.ts';
import { type ApiCallSpan, inApiCallSpan } from './call-span.ts';
import { deadlineForSize, startCallDeadline } from './deadline.ts';
import type { ResolvedApiClientOptions } from './options.ts';
import { type ApiRequest, describePath, sinkOf } from './request.ts';
import { backoffDelay, honoursRetryAfter, parseRetryAfter } from './retry.ts';
import { toApiError } from './to-api-error.ts';

export interface Transport {
  send(request: ApiRequest): Promise<ApiResponse>;
  close(): Promise<void>;
}

export function createTransport(options: ResolvedApiClientOptions): Transport {
  // One keep-alive pool per base URL: the worker makes several calls per message.
  const pool = new Pool(options.origin);
  const attemptOnce = createAttempt(pool, options);

  /** One logical call, its attempts and the waits between them in one span (call-span.ts). */
  function send(request: ApiRequest): Promise<ApiResponse> {
    return inApiCallSpan(request, (span) => sendWithin(request, span));
  }

  async function sendWithin(request: ApiRequest, span: ApiCallSpan): Promise<ApiResponse> {
    const shownPath = describePath(request);
    const target = options.pathPrefix + shownPath;
    const sink = sinkOf(request);
    // A document may be as large as its limit allows: its deadline leaves time for that at the
    // minimum rate (deadline.ts).
    const deadline = startCallDeadline(
      sink.to === 'document'
        ? deadlineForSize(options.deadlineMs, sink.maxBytes, options.minBytesPerSecond)
        : options.deadlineMs,
    );
    for (let attempt = 0; ; attempt++) {
      const outcome = await attemptOnce(request, target, deadline);
      if (outcome.kind === 'response' && isSuccess(outcome.response.status)) {
        span.answered(outcome.response.status, attempt + 1);
        return outcome.response;
      }

      const transient = isTransient(outcome, request.retry);
      const slow = outcome.kind === 'failure' ? outcome.slow : undefined;
      if (!transient || slow !== undefined || attempt >= options.maxRetries) {
        throw toApiError(outcome, request, shownPath, transient, attempt + 1);
      }
      const delayMs = retryDelay(outcome, attempt, options);
      // No attempt could end before the deadline: the worker's backoff asks again instead.
      if (delayMs >= deadline.remaining()) {
        throw toApiError(outcome, request, shownPath, transient, attempt + 1);
      }
      const status = outcome.kind === 'response' ? outcome.response.status : undefined;
      const error = outcome.kind === 'failure' ? printableText(outcome.text) : undefined;
      options.logger?.warn(
        {
          method: request.method,
          path: shownPath,
          ...(status === undefined ? { error } : { status }),
          attempt: attempt + 1,
          delayMs,
        },
        'messaging API call failed, retrying',
      );
      span.retrying({
        attempt: attempt + 1,
        reason: status === undefined ? (error ?? outcome.kind) : `HTTP ${status}`,
        ...(status === undefined ? {} : { status }),
        delayMs,
      });
      await options.sleep(delayMs);
    }
  }

  return { send, close: () => pool.close() };
}

/** The wait before the next attempt: what a 429 or 503 asks for, or backoff; capped either way. */
function retryDelay(
  outcome: AttemptOutcome,
  attempt: number,
  options: ResolvedApiClientOptions,
): number {
  const askedFor =
    outcome.kind === 'response' && honoursRetryAfter(outcome.response.status)
      ? parseRetryAfter(outcome.retryAfter, Date.now())
      : undefined;
  return Math.min(
    options.retryMaxDelayMs,
    askedFor ??
      backoffDelay(attempt, {
        base: options.retryBaseDelayMs,
        max: options.retryMaxDelayMs,
        random: options.random,
      }),
  );
}
