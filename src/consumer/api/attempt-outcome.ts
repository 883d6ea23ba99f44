/**
 * What one attempt of a call came to, and whether the call may try again.
 *
 * The "not sent / maybe sent" split lives in isTransient: a failure before the request left
 * (connection refused, DNS) is safe to retry for any call; one after it may have reached the
 * service (a reset, a timeout, a 5xx) only for an idempotent call, since repeating a submit
 * could create a second invoice. A 429 is retried for both: the service says it did not
 * process the request.
 */
import type { JsonShapeError } from '../../protocol/index.ts';
import type { ReceivedDocument } from './read-document.ts';
import type { ApiRequest, ResponseSink } from './request.ts';
import { isRetryableStatus, type TransportFailure } from './retry.ts';

export interface ApiResponse {
  status: number;
  contentType: string | undefined;
  /** The Date header: when the service made the answer, on its own clock. */
  date: string | undefined;
  /** The body read into memory; empty for a document (see `document`). */
  body: Buffer;
  /** The body, when the sink was a document: its bytes in memory, or its spool file. */
  document?: ReceivedDocument;
}

/** A limit of deadline.ts that ends the call at once, with no retry within it. */
export type SlowLimit = { limit: 'deadline' | 'min_rate'; value: number };

export type AttemptOutcome =
  | { kind: 'response'; response: ApiResponse; retryAfter: string | undefined }
  | {
      kind: 'failure';
      failure: TransportFailure;
      text: string;
      error: unknown;
      slow?: SlowLimit;
    }
  | { kind: 'too_large'; size: number | undefined; limit: number; limitName: string }
  | { kind: 'bad_shape'; error: JsonShapeError };

/** Redirects are not followed: the API has none, and a redirect would carry the token away. */
export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

export function tooLarge(sink: ResponseSink, size: number | undefined): AttemptOutcome {
  const limitName =
    sink.to === 'document' ? sink.limitName : "the client's fixed JSON answer limit";
  return { kind: 'too_large', size, limit: sink.maxBytes, limitName };
}

export function isTransient(outcome: AttemptOutcome, policy: ApiRequest['retry']): boolean {
  // The same call gives the same body: neither is mended by asking again.
  if (outcome.kind === 'too_large' || outcome.kind === 'bad_shape') return false;
  if (outcome.kind === 'response') {
    const { status } = outcome.response;
    if (!isRetryableStatus(status)) return false;
    return policy === 'idempotent' || status === 429;
  }
  if (outcome.failure === 'not_sent') return true;
  return outcome.failure === 'maybe_sent' && policy === 'idempotent';
}
