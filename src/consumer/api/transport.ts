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
 * Every read has a bound (the API is outside this process): a body larger than its sink
 * allows is refused on its Content-Length before any of it is read, and otherwise cut off as
 * soon as the count passes the limit. Error bodies are kept only up to ERROR_READ_LIMIT. A file
 * sink may also bound the shape of the JSON it receives (a transaction JSON, which the importer
 * parses): the bytes are scanned as they arrive and the download stops at the first limit
 * passed, before the file is handed to anyone (protocol/json-shape.ts).
 *
 * A document that cannot be written to its local file (a full or read-only disk) is a
 * SpoolWriteError: the fault is this host's, not the API's, and no retry of the call mends it.
 */
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { Pool } from 'undici';
import {
  createJsonShapeScanner,
  JsonShapeError,
  type JsonShapeLimits,
} from '../../protocol/index.ts';
import { closeFd, openFd, writeAll } from '../files/file-descriptors.ts';
import { printableText } from '../text/error-text.ts';
import {
  ApiDeadlineError,
  ApiError,
  ERROR_BODY_LIMIT,
  type Problem,
  parseProblem,
} from './api-error.ts';
import {
  BodyTooSlow,
  type CallDeadline,
  createRateWatch,
  deadlineForSize,
  startCallDeadline,
} from './deadline.ts';
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
  /** Where a successful answer's body goes, and its bound. @default memory, MAX_JSON_BYTES */
  sink?: ResponseSink;
}

/**
 * Bound of a JSON answer read into memory: a descriptor (about 2 KiB), a status, a submit
 * result. It was 16 MiB until issue 26, which let a hostile API hand over 15 MiB of nested
 * arrays; the shape of what is read is also checked before it is parsed (client.ts).
 */
export const MAX_JSON_BYTES = 1024 * 1024;
/**
 * Bound of a page of GET /messages: the service allows up to 1,000 descriptors a page, about
 * 1.5 MiB; the consumer asks for its default of 100.
 */
export const MAX_LIST_BYTES = 2 * 1024 * 1024;
const JSON_SINK: ResponseSink = { to: 'memory', maxBytes: MAX_JSON_BYTES };

/** A successful body read into memory (JSON answers), or written to a file (documents). */
export type ResponseSink =
  | { to: 'memory'; maxBytes: number }
  | {
      to: 'file';
      /** Created (or truncated) by each attempt; removed when the call fails. */
      path: string;
      maxBytes: number;
      /** Named in the error when the body is too large, e.g. `API_MAX_DOCUMENT_BYTES`. */
      limitName: string;
      /** When the body is JSON: the shape it must stay within, checked as it arrives. */
      shape?: Readonly<JsonShapeLimits>;
    };

/** How much of an error answer's body is read at all; the rest is never buffered. */
export const ERROR_READ_LIMIT = 64 * 1024;

export interface ApiResponse {
  status: number;
  contentType: string | undefined;
  /** The Date header: when the service made the answer, on its own clock. */
  date: string | undefined;
  /** The body read into memory; empty when it went to a file. */
  body: Buffer;
  /** The body's file, when the sink was a file. */
  file?: { path: string; size: number; sha256: string };
}

/** The answer is larger than the caller allows: the same call would fail the same way. */
class BodyTooLarge extends Error {
  readonly size: number | undefined;
  constructor(size: number | undefined) {
    super('body too large');
    this.size = size;
  }
}

/**
 * The fetched document could not be written to the spool folder (DOCUMENTS_DIR/.incoming):
 * a local fault, such as a full or read-only disk. Neither an ApiError nor the message's
 * fault: the worker retries the event later (and dead-letters it after WORKER_MAX_ATTEMPTS),
 * and the message is never marked as failed for it.
 */
export class SpoolWriteError extends Error {
  override readonly name = 'SpoolWriteError';
  readonly path: string;
  /** The file system's error code (ENOSPC, EROFS, ...), when it gave one. */
  readonly code: string | undefined;
  constructor(path: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`could not write the fetched document to ${path}: ${reason}`, { cause });
    this.path = path;
    const code = (cause as { code?: unknown } | undefined)?.code;
    this.code = typeof code === 'string' ? code : undefined;
  }
}

export interface Transport {
  send(request: ApiRequest): Promise<ApiResponse>;
  close(): Promise<void>;
}

/** A limit of deadline.ts that ends the call at once, with no retry within it. */
type SlowLimit = { limit: 'deadline' | 'min_rate'; value: number };

type AttemptOutcome =
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

export function createTransport(options: ResolvedApiClientOptions): Transport {
  // One keep-alive pool per base URL: the worker makes several calls per message.
  const pool = new Pool(options.origin);
  const headers = {
    authorization: `Bearer ${options.token}`,
    accept: 'application/json, application/problem+json;q=0.9, */*;q=0.8',
  };

  async function attemptOnce(
    request: ApiRequest,
    target: string,
    deadline: CallDeadline,
  ): Promise<AttemptOutcome> {
    const sink = request.sink ?? JSON_SINK;
    const signal = deadline.signal;
    try {
      const answer = await pool.request({
        method: request.method,
        path: target,
        headers:
          request.json === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        body: request.json === undefined ? null : JSON.stringify(request.json),
        signal,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      });
      const base = {
        status: answer.statusCode,
        contentType: header(answer.headers, 'content-type'),
        date: header(answer.headers, 'date'),
      };
      const retryAfter = header(answer.headers, 'retry-after');
      const received = createRateWatch(options.minBytesPerSecond, options.timeoutMs);
      if (!isSuccess(answer.statusCode)) {
        // Only the start of an error body matters; the rest is never read.
        const body = await readToMemory(answer.body, ERROR_READ_LIMIT, received, 'truncate');
        return { kind: 'response', response: { ...base, body }, retryAfter };
      }
      const declared = Number(header(answer.headers, 'content-length'));
      if (Number.isFinite(declared) && declared > sink.maxBytes) {
        answer.body.destroy();
        return tooLarge(sink, declared);
      }
      if (sink.to === 'memory') {
        const body = await readToMemory(answer.body, sink.maxBytes, received, 'refuse');
        return { kind: 'response', response: { ...base, body }, retryAfter };
      }
      const file = await readToFile(answer.body, sink, received);
      return {
        kind: 'response',
        response: { ...base, body: Buffer.alloc(0), file },
        retryAfter,
      };
    } catch (error) {
      // A disk that refused the file may refuse this too; the first error is the one to tell.
      if (sink.to === 'file') await rm(sink.path, { force: true }).catch(() => {});
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
      if (signal.aborted) {
        return {
          kind: 'failure',
          failure: 'maybe_sent',
          text: `no complete answer within the call's deadline of ${deadline.ms} ms (API_DEADLINE_MS${sink.to === 'file' ? ', plus API_MAX_DOCUMENT_BYTES at API_MIN_BYTES_PER_SECOND' : ''})`,
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
  }

  async function send(request: ApiRequest): Promise<ApiResponse> {
    const shownPath = describePath(request);
    const target = options.pathPrefix + shownPath;
    const sink = request.sink ?? JSON_SINK;
    // A document may be as large as its limit allows: its deadline leaves time for that at the
    // minimum rate (deadline.ts).
    const deadline = startCallDeadline(
      sink.to === 'file'
        ? deadlineForSize(options.deadlineMs, sink.maxBytes, options.minBytesPerSecond)
        : options.deadlineMs,
    );
    for (let attempt = 0; ; attempt++) {
      const outcome = await attemptOnce(request, target, deadline);
      if (outcome.kind === 'response' && isSuccess(outcome.response.status))
        return outcome.response;

      const transient = isTransient(outcome, request.retry);
      const slow = outcome.kind === 'failure' ? outcome.slow : undefined;
      if (!transient || slow !== undefined || attempt >= options.maxRetries) {
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
      // No attempt could end before the deadline: the worker's backoff asks again instead.
      if (delayMs >= deadline.remaining()) {
        throw toApiError(outcome, request, shownPath, transient, attempt + 1);
      }
      options.logger?.warn(
        {
          method: request.method,
          path: shownPath,
          ...(status === undefined
            ? { error: outcome.kind === 'failure' ? printableText(outcome.text) : undefined }
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

function tooLarge(sink: ResponseSink, size: number | undefined): AttemptOutcome {
  const limitName = sink.to === 'file' ? sink.limitName : "the client's fixed JSON answer limit";
  return { kind: 'too_large', size, limit: sink.maxBytes, limitName };
}

/** Reads at most `maxBytes`: past it, `refuse` fails the read, `truncate` keeps the start. */
async function readToMemory(
  body: Readable,
  maxBytes: number,
  received: (bytes: number) => void,
  over: 'refuse' | 'truncate',
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    received(chunk.length);
    if (size + chunk.length > maxBytes) {
      if (over === 'refuse') {
        body.destroy();
        throw new BodyTooLarge(undefined);
      }
      chunks.push(chunk.subarray(0, maxBytes - size));
      body.destroy();
      break;
    }
    size += chunk.length;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Streams the body to `path`, counting and hashing it; never more than `maxBytes`. (A file
 * descriptor, not a FileHandle: the same system calls for less work on the event loop.) A
 * failure of the local file (open, write, close: a full or read-only disk) is a
 * SpoolWriteError, never mistaken for the API's.
 */
async function readToFile(
  body: Readable,
  sink: Extract<ResponseSink, { to: 'file' }>,
  received: (bytes: number) => void,
): Promise<{ path: string; size: number; sha256: string }> {
  const { path, maxBytes } = sink;
  const shape = sink.shape === undefined ? undefined : createJsonShapeScanner(sink.shape);
  const local = (error: unknown): never => {
    throw new SpoolWriteError(path, error);
  };
  const hash = createHash('sha256');
  const fd = await openFd(path, 'w').catch(local);
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      received(chunk.length);
      size += chunk.length;
      if (size > maxBytes) {
        body.destroy();
        throw new BodyTooLarge(undefined);
      }
      try {
        shape?.write(chunk);
      } catch (error) {
        body.destroy();
        throw error;
      }
      hash.update(chunk);
      await writeAll(fd, chunk).catch(local);
    }
  } finally {
    await closeFd(fd).catch(local);
  }
  return { path, size, sha256: hash.digest('hex') };
}

function isTransient(outcome: AttemptOutcome, policy: ApiRequest['retry']): boolean {
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
