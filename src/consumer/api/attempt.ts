/**
 * One attempt of a call: the request sent on the keep-alive pool and its answer read within its
 * bounds (read-body.ts). Whatever happens is told as an AttemptOutcome, not thrown, so that the
 * loop in transport.ts decides on retrying in one place. Only a SpoolWriteError is thrown: the
 * fault is this host's disk, and no other attempt mends it.
 */
import type { Dispatcher, Pool } from 'undici';
import { JsonShapeError } from '../../protocol/index.ts';
import { headerValue } from '../text/header-value.ts';
import { type AttemptOutcome, isSuccess, tooLarge } from './attempt-outcome.ts';
import { BodyTooSlow, type CallDeadline, createRateWatch } from './deadline.ts';
import type { ResolvedApiClientOptions } from './options.ts';
import { BodyTooLarge, ERROR_READ_LIMIT, readToMemory, SpoolWriteError } from './read-body.ts';
import { readToDocument } from './read-document.ts';
import { type ApiRequest, type ResponseSink, sinkOf } from './request.ts';
import { classifyTransportError } from './retry.ts';

/** Sends `request` to `target` (prefix, path and query) once, within the call's deadline. */
export type Attempt = (
  request: ApiRequest,
  target: string,
  deadline: CallDeadline,
) => Promise<AttemptOutcome>;

export function createAttempt(pool: Pool, options: ResolvedApiClientOptions): Attempt {
  const headers = {
    authorization: `Bearer ${options.token}`,
    accept: 'application/json, application/problem+json;q=0.9, */*;q=0.8',
  };

  return async (request, target, deadline) => {
    const sink = sinkOf(request);
    try {
      const answer = await pool.request({
        method: request.method,
        path: target,
        headers:
          request.json === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        body: request.json === undefined ? null : JSON.stringify(request.json),
        signal: deadline.signal,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      });
      return await readAnswer(answer, sink, options);
    } catch (error) {
      // A document's spool file, if it had one, was removed by readToDocument.
      return failureOutcome(error, sink, deadline, options);
    }
  };
}

/** The answer's body into its sink, or the start of an error answer's into memory. */
async function readAnswer(
  answer: Dispatcher.ResponseData,
  sink: ResponseSink,
  options: ResolvedApiClientOptions,
): Promise<AttemptOutcome> {
  const base = {
    status: answer.statusCode,
    contentType: headerValue(answer.headers, 'content-type'),
    date: headerValue(answer.headers, 'date'),
  };
  const retryAfter = headerValue(answer.headers, 'retry-after');
  const received = createRateWatch(options.minBytesPerSecond, options.timeoutMs);
  if (!isSuccess(answer.statusCode)) {
    // Only the start of an error body matters; the rest is never read.
    const body = await readToMemory(answer.body, ERROR_READ_LIMIT, received, 'truncate');
    return { kind: 'response', response: { ...base, body }, retryAfter };
  }
  const declared = Number(headerValue(answer.headers, 'content-length'));
  if (Number.isFinite(declared) && declared > sink.maxBytes) {
    answer.body.destroy();
    return tooLarge(sink, declared);
  }
  if (sink.to === 'memory') {
    const body = await readToMemory(answer.body, sink.maxBytes, received, 'refuse');
    return { kind: 'response', response: { ...base, body }, retryAfter };
  }
  const document = await readToDocument(
    answer.body,
    sink,
    Number.isFinite(declared) ? declared : undefined,
    received,
  );
  return {
    kind: 'response',
    response: { ...base, body: Buffer.alloc(0), document },
    retryAfter,
  };
}

/** What a thrown error means for the call; a SpoolWriteError is thrown on. */
function failureOutcome(
  error: unknown,
  sink: ResponseSink,
  deadline: CallDeadline,
  options: ResolvedApiClientOptions,
): AttemptOutcome {
  if (error instanceof BodyTooLarge) return tooLarge(sink, error.size);
  if (error instanceof JsonShapeError) return { kind: 'bad_shape', error };
  // Not the API's failure, and not one another attempt of the call would mend.
  if (error instanceof SpoolWriteError) throw error;
  // The request was on its way or answered in part when the API was found too slow: the
  // service may have acted on it (a deadline passed while connecting is counted so too).
  if (error instanceof BodyTooSlow) {
    return {
      kind: 'failure',
      failure: 'maybe_sent',
      text: `the answer arrived at ${error.bytesPerSecond} bytes/s over ${error.windowMs} ms, under the minimum of ${options.minBytesPerSecond} (API_MIN_BYTES_PER_SECOND)`,
      error,
      slow: { limit: 'min_rate', value: options.minBytesPerSecond },
    };
  }
  if (deadline.signal.aborted) {
    return {
      kind: 'failure',
      failure: 'maybe_sent',
      text: `no complete answer within the call's deadline of ${deadline.ms} ms (API_DEADLINE_MS${sink.to === 'document' ? ', plus API_MAX_DOCUMENT_BYTES at API_MIN_BYTES_PER_SECOND' : ''})`,
      error,
      slow: { limit: 'deadline', value: deadline.ms },
    };
  }
  return {
    kind: 'failure',
    failure: classifyTransportError(error),
    text: describeTransportError(error, options.timeoutMs),
    error,
  };
}

/** The error's own text, or what undici's per-wait timeouts mean, with their bound. */
function describeTransportError(error: unknown, timeoutMs: number): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT')
    return `no answer within ${timeoutMs} ms (API_TIMEOUT_MS)`;
  if (code === 'UND_ERR_BODY_TIMEOUT') {
    return `the body stopped: no next part within ${timeoutMs} ms (API_TIMEOUT_MS)`;
  }
  return error instanceof Error ? error.message || String(error) : String(error);
}
