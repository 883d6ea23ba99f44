/**
 * What one call to the messaging API asks for: method, path and query, body, retry policy, and
 * where its answer goes with the bound of that place. Also the path as errors and log lines
 * show it, and the one rule for putting a message id into a path.
 */
import { isSafeMessageId, type JsonShapeLimits, UNSAFE_MESSAGE_ID } from '../../protocol/index.ts';
import { ApiError } from './api-error.ts';
import type { MemoryBudget } from './memory-budget.ts';

export type QueryValue = string | number | boolean | undefined;

export interface ApiRequest {
  method: 'GET' | 'POST';
  /**
   * What the call asks for, in a few fixed words (`message descriptor`, `mark-as-delivered`):
   * with the method, the name of its span (call-span.ts). Never an id: span names stay few.
   */
  operation: string;
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
 * A successful body read into memory (JSON answers), or a document: kept in memory when small,
 * written to a spool file when not.
 */
export type ResponseSink =
  | { to: 'memory'; maxBytes: number }
  | {
      to: 'document';
      /**
       * A new spool file's path, its folder ready: asked for only when the document goes to a
       * file (one per attempt that needs it; the file is removed when that attempt fails).
       */
      spoolFile: () => Promise<string>;
      maxBytes: number;
      /** Named in the error when the body is too large, e.g. `API_MAX_DOCUMENT_BYTES`. */
      limitName: string;
      /** Kept in memory when it ends within this many bytes and `memory` grants them. */
      memoryBytes: number;
      /** The bytes all documents kept in memory may hold at once. */
      memory: MemoryBudget;
      /** When the body is JSON: the shape it must stay within, checked as it arrives. */
      shape?: Readonly<JsonShapeLimits>;
    };

/**
 * Bound of a JSON answer read into memory: a descriptor (about 2 KiB), a status, a submit
 * result. It was 16 MiB until issue 26, which let a hostile API hand over 15 MiB of nested
 * arrays; the shape of what is read is also checked before it is parsed (json-answer.ts).
 */
export const MAX_JSON_BYTES = 1024 * 1024;
/**
 * Bound of a page of GET /messages: the service allows up to 1,000 descriptors a page, about
 * 1.5 MiB; the consumer asks for its default of 100.
 */
export const MAX_LIST_BYTES = 2 * 1024 * 1024;
const JSON_SINK: ResponseSink = { to: 'memory', maxBytes: MAX_JSON_BYTES };

/** The request's sink, or the JSON answer's when it names none. */
export function sinkOf(request: ApiRequest): ResponseSink {
  return request.sink ?? JSON_SINK;
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

/**
 * A message id as one path segment: an id with `/` or `..` must not reach another route.
 * encodeURIComponent takes care of `/`, but leaves `.` and `..` as they are, which a
 * normalising gateway resolves; such ids are refused before anything is sent.
 */
export function segment(value: string, method: 'GET' | 'POST' = 'GET'): string {
  return encodeURIComponent(checkedMessageId(value, method));
}

/**
 * Throws an ApiError (not retryable, no status: nothing was sent) for an id that is not one safe
 * path segment; the worker dead-letters such an event instead of retrying it.
 */
export function checkedMessageId(messageId: string, method: 'GET' | 'POST'): string {
  if (isSafeMessageId(messageId)) return messageId;
  throw new ApiError(
    `refused to call the messaging API with message id ${JSON.stringify(messageId.slice(0, 100))}: it ${UNSAFE_MESSAGE_ID}`,
    { status: undefined, body: '', method, path: '(not sent)', retryable: false },
  );
}
