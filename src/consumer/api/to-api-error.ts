/**
 * The ApiError a failed call throws, built from the outcome of its last attempt: the answer's
 * status and problem details, a network failure's text, or the limit a body passed; with how
 * many attempts it took, and a warning when a call that is not idempotent was not repeated.
 */
import { printableText } from '../text/error-text.ts';
import {
  ApiDeadlineError,
  ApiError,
  ERROR_BODY_LIMIT,
  type Problem,
  parseProblem,
} from './api-error.ts';
import { type AttemptOutcome, isTransient } from './attempt-outcome.ts';
import type { ApiRequest } from './request.ts';

export function toApiError(
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
  if (outcome.kind === 'too_large') {
    const size = outcome.size === undefined ? 'more than that' : `${outcome.size} bytes`;
    const text = `the answer is larger than ${outcome.limitName} (${outcome.limit} bytes): ${size}`;
    // A document's limit is the operator's to raise; a JSON answer's is fixed (MAX_JSON_BYTES).
    const hint = outcome.limitName.startsWith('API_')
      ? '; raise the limit, then replay the event'
      : '';
    return new ApiError(`${call}: ${text}${hint}`, {
      status: 200,
      body: text,
      method: request.method,
      path,
      retryable: false,
    });
  }
  if (outcome.kind === 'bad_shape') {
    const text = `the answer is JSON over its shape limits: ${outcome.error.message}`;
    return new ApiError(`${call}: ${text}`, {
      status: 200,
      body: text,
      method: request.method,
      path,
      retryable: false,
    });
  }
  if (outcome.kind === 'failure') {
    const text = printableText(outcome.text);
    const details = {
      status: undefined,
      body: text,
      method: request.method,
      path,
      retryable,
      cause: outcome.error,
    };
    const message = `${call} failed: ${text}${tries}${unsafe}`;
    if (outcome.slow === undefined) return new ApiError(message, details);
    const { limit, value } = outcome.slow;
    return new ApiDeadlineError(message, { ...details, limit, limitValue: value });
  }
  const { status, contentType } = outcome.response;
  const full = outcome.response.body.toString('utf8');
  // The API's text goes into the message (stored as lastError, logged), so it is made
  // printable and bounded here, once, for every caller (error-text.ts says why).
  const text = printableText(full, ERROR_BODY_LIMIT);
  const problem = printableProblem(parseProblem(contentType, full));
  const summary = problem?.detail ?? problem?.title ?? (printableText(text, 200) || '(empty body)');
  return new ApiError(`${call} answered ${status}: ${summary}${tries}${unsafe}`, {
    status,
    body: text,
    method: request.method,
    path,
    retryable,
    ...(problem === undefined ? {} : { problem }),
  });
}

/** The problem's text fields printable and bounded (REMOTE_TEXT_LIMIT); the status as sent. */
function printableProblem(problem: Problem | undefined): Problem | undefined {
  if (problem === undefined) return undefined;
  const printable: Problem = { ...problem };
  if (problem.type !== undefined) printable.type = printableText(problem.type);
  if (problem.title !== undefined) printable.title = printableText(problem.title);
  if (problem.detail !== undefined) printable.detail = printableText(problem.detail);
  return printable;
}
