/**
 * The messaging API client (docs/messaging-api.md#routes, open points decided in docs/decisions.md).
 * Each method is one call; timeouts and retries live in transport.ts, so every call gets the
 * same policy. All failures are ApiError.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { z } from 'zod';
import {
  API_JSON_LIMITS,
  DOCUMENT_JSON_LIMITS,
  isSafeMessageId,
  JsonShapeError,
  type MessageDescriptor,
  messageDescriptorSchema,
  parseBoundedJson,
  type Transfer,
  transactionPath,
  UNSAFE_MESSAGE_ID,
} from '../../protocol/index.ts';
import { printableText } from '../text/error-text.ts';
import { ApiError, ERROR_BODY_LIMIT } from './api-error.ts';
import { type ApiClientOptions, resolveApiClientOptions } from './options.ts';
import {
  describeIssues,
  messageList,
  messageStatus,
  submitInvoiceResult,
} from './response-schemas.ts';
import {
  type ApiRequest,
  type ApiResponse,
  createTransport,
  describePath,
  MAX_LIST_BYTES,
  type ResponseSink,
} from './transport.ts';

export interface ListMessagesQuery {
  /** Delivery status, for example `pendingdelivery`. */
  status?: string;
  transfer?: Transfer;
  /**
   * Only messages with exactly this documentNo (an invoice number): the simulator's filter,
   * which the service does not describe and may ignore (docs/decisions.md#message-list). A
   * caller compares each item's documentNo itself.
   */
  documentNo?: string;
  /** `nextCursor` of the previous page; leave out for the first page. */
  cursor?: string;
  /** Page size; the service defaults to 100 and allows up to 1000. */
  limit?: number;
}

export interface MessagePage {
  items: MessageDescriptor[];
  /** `null` on the last page. */
  nextCursor: string | null;
}

export interface FetchedMessage {
  descriptor: MessageDescriptor;
  /**
   * When the service made the answer (its Date header, whole seconds, ms since the epoch), on
   * the same clock as occurredAt: every change that occurred up to then is in `descriptor`.
   * Undefined when the answer had no valid Date header.
   */
  servedAt: number | undefined;
}

/** A fetched document, in a file of the spool folder (never held in memory whole). */
export interface FetchedDocument {
  /** The Content-Type the service sent, `application/octet-stream` when it sent none. */
  contentType: string;
  /** The file holding the bytes exactly as received; the caller moves or removes it. */
  path: string;
  size: number;
  /** SHA-256 of the bytes, lowercase hex, computed while they arrived. */
  sha256: string;
}

export interface ApiClient {
  /** GET /messages/:mid. `transfer` picks the side of a message a participant sent itself. */
  getMessage(messageId: string, options?: { transfer?: Transfer }): Promise<FetchedMessage>;
  /** GET /messages/:mid/status. */
  getMessageStatus(messageId: string): Promise<{ status: string }>;
  /**
   * GET /messages/:mid/documents/core: the core document in its own format, in a spool file.
   * A document over `maxDocumentBytes` is an ApiError (not retryable) and leaves no file.
   */
  getCoreDocument(messageId: string): Promise<FetchedDocument>;
  /**
   * GET /transactions/<kebab-case action>?messageId=: the message's JSON, bytes as received in
   * a spool file, kept unparsed for the importer. Throws TypeError when `action` is not a
   * transaction name.
   */
  getTransaction(action: string, messageId: string): Promise<FetchedDocument>;
  /** GET /messages: one page. */
  listMessages(query: ListMessagesQuery): Promise<MessagePage>;
  /** Every message matching the query, following nextCursor page by page. */
  listAllMessages(query: Omit<ListMessagesQuery, 'cursor'>): AsyncIterable<MessageDescriptor>;
  /** POST /messages/:mid/mark-as-delivered. Idempotent at the service, so retried. */
  markAsDelivered(messageId: string): Promise<void>;
  /** POST /messages/:mid/mark-as-failed with `{"reason"}`. Idempotent, so retried. */
  markAsFailed(messageId: string, reason: string): Promise<void>;
  /**
   * POST /transactions/submit-invoice?more=. Not idempotent: see the comment in the method.
   * A successful answer does not mean validation passed (docs/messaging-api.md#submit-invoice).
   */
  submitInvoice(
    invoice: unknown,
    options?: { more?: boolean },
  ): Promise<{ messageId: string; status: string }>;
  /** Closes the keep-alive connections once the calls in flight are done. */
  close(): Promise<void>;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const resolved = resolveApiClientOptions(options, {
    sleep: (ms) => delay(ms),
    spoolDir: join(tmpdir(), 'invoicing-consumer-spool'),
  });
  const transport = createTransport(resolved);
  let spoolReady: Promise<unknown> | undefined;

  async function json<T>(request: ApiRequest, schema: z.ZodType<T>, what: string): Promise<T> {
    const response = await transport.send(request);
    return parseJson(response, request, schema, what);
  }

  async function document(
    request: Omit<ApiRequest, 'sink'>,
    shape?: Extract<ResponseSink, { to: 'file' }>['shape'],
  ): Promise<FetchedDocument> {
    // Once per client; a failure (a folder that cannot be made) is tried again next time.
    spoolReady ??= prepareSpool(resolved.spoolDir).catch((error: unknown) => {
      spoolReady = undefined;
      throw error;
    });
    await spoolReady;
    const path = join(resolved.spoolDir, `${randomUUID()}${SPOOL_SUFFIX}`);
    const response = await transport.send({
      ...request,
      sink: {
        to: 'file',
        path,
        maxBytes: resolved.maxDocumentBytes,
        limitName: 'API_MAX_DOCUMENT_BYTES',
        ...(shape === undefined ? {} : { shape }),
      },
    });
    const file = response.file;
    if (file === undefined) throw new Error('the transport wrote no file for a document');
    return { contentType: response.contentType ?? 'application/octet-stream', ...file };
  }

  async function listMessages(query: ListMessagesQuery): Promise<MessagePage> {
    return json(
      {
        method: 'GET',
        path: '/messages',
        query: { ...query },
        retry: 'idempotent',
        sink: { to: 'memory', maxBytes: MAX_LIST_BYTES },
      },
      messageList,
      'a message list',
    );
  }

  return {
    getMessage: async (messageId, getOptions = {}) => {
      const request: ApiRequest = {
        method: 'GET',
        path: `/messages/${segment(messageId)}`,
        query: { transfer: getOptions.transfer },
        retry: 'idempotent',
      };
      const response = await transport.send(request);
      const descriptor = parseJson(
        response,
        request,
        messageDescriptorSchema,
        'a message descriptor',
      );
      const servedAt = response.date === undefined ? Number.NaN : Date.parse(response.date);
      return { descriptor, servedAt: Number.isFinite(servedAt) ? servedAt : undefined };
    },

    getMessageStatus: async (messageId) => {
      const { status } = await json(
        { method: 'GET', path: `/messages/${segment(messageId)}/status`, retry: 'idempotent' },
        messageStatus,
        'a message status',
      );
      return { status };
    },

    getCoreDocument: async (messageId) =>
      document({
        method: 'GET',
        path: `/messages/${segment(messageId)}/documents/core`,
        retry: 'idempotent',
      }),

    getTransaction: async (action, messageId) =>
      document(
        {
          method: 'GET',
          path: transactionPath(action),
          // A query value is encoded safely anyway; refused all the same, like in a path.
          query: { messageId: checkedMessageId(messageId, 'GET') },
          retry: 'idempotent',
        },
        // JSON the importer parses whole: its shape is checked as it arrives, so a bomb is
        // refused here (a non-retryable ApiError) and never reaches an importer.
        DOCUMENT_JSON_LIMITS,
      ),

    listMessages,

    async *listAllMessages(query) {
      let cursor: string | undefined;
      const seen = new Set<string>();
      do {
        const page = await listMessages(cursor === undefined ? query : { ...query, cursor });
        yield* page.items;
        cursor = page.nextCursor ?? undefined;
        // A service that hands back a cursor twice would make this loop forever.
        if (cursor !== undefined) {
          if (seen.has(cursor)) {
            throw shapeError(
              {
                method: 'GET',
                path: '/messages',
                query: { ...query, cursor },
                retry: 'idempotent',
              },
              200,
              `the message list repeated the cursor ${JSON.stringify(cursor)}`,
              '',
            );
          }
          seen.add(cursor);
        }
      } while (cursor !== undefined);
    },

    markAsDelivered: async (messageId) => {
      await transport.send({
        method: 'POST',
        path: `/messages/${segment(messageId, 'POST')}/mark-as-delivered`,
        retry: 'idempotent',
      });
    },

    markAsFailed: async (messageId, reason) => {
      await transport.send({
        method: 'POST',
        path: `/messages/${segment(messageId, 'POST')}/mark-as-failed`,
        json: { reason },
        retry: 'idempotent',
      });
    },

    submitInvoice: (invoice, submitOptions = {}) =>
      json(
        {
          method: 'POST',
          path: '/transactions/submit-invoice',
          query: { more: submitOptions.more ?? false },
          json: invoice,
          // Submitting is not idempotent: a request that reached the service but whose answer
          // was lost (5xx, reset, timeout) may already have created the invoice, and sending
          // it again would create a second one. So only failures before the request left
          // (connection refused, DNS) and 429 (the service says it did not process it) are
          // retried; anything else is an ApiError with retryable=false for a person to check.
          retry: 'unsent-only',
        },
        submitInvoiceResult,
        'a submit-invoice result',
      ).then(({ messageId, status }) => ({ messageId, status })),

    close: () => transport.close(),
  };
}

/**
 * A message id as one path segment: an id with `/` or `..` must not reach another route.
 * encodeURIComponent takes care of `/`, but leaves `.` and `..` as they are, which a
 * normalising gateway resolves; such ids are refused before anything is sent.
 */
function segment(value: string, method: 'GET' | 'POST' = 'GET'): string {
  return encodeURIComponent(checkedMessageId(value, method));
}

/**
 * Throws an ApiError (not retryable, no status: nothing was sent) for an id that is not one safe
 * path segment; the worker dead-letters such an event instead of retrying it.
 */
function checkedMessageId(messageId: string, method: 'GET' | 'POST'): string {
  if (isSafeMessageId(messageId)) return messageId;
  throw new ApiError(
    `refused to call the messaging API with message id ${JSON.stringify(messageId.slice(0, 100))}: it ${UNSAFE_MESSAGE_ID}`,
    { status: undefined, body: '', method, path: '(not sent)', retryable: false },
  );
}

function parseJson<T>(
  response: ApiResponse,
  request: ApiRequest,
  schema: z.ZodType<T>,
  what: string,
): T {
  // Only the start is kept in an error; decoding all of a large body for it would be waste.
  const start = () => response.body.subarray(0, ERROR_BODY_LIMIT).toString('utf8');
  let value: unknown;
  try {
    // Its shape first: 15 MiB of nested arrays cost 1.3 GiB and 4 s of event loop in
    // JSON.parse before it threw (issue 26). Refused like any answer of the wrong shape.
    value = parseBoundedJson(response.body, API_JSON_LIMITS);
  } catch (error) {
    const reason =
      error instanceof JsonShapeError
        ? `the answer is JSON over its shape limits (${error.message}), expected ${what}`
        : `the answer is not JSON, expected ${what}`;
    throw shapeError(request, response.status, reason, start());
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    throw shapeError(
      request,
      response.status,
      `the answer is not ${what}: ${describeIssues(result.error)}`,
      start(),
    );
  }
  return result.data;
}

/**
 * A 2xx with an unexpected body. Not retryable: the same call gives the same body, and a
 * client and service that disagree on the contract need a person, not another attempt.
 */
function shapeError(request: ApiRequest, status: number, reason: string, body: string): ApiError {
  const path = describePath(request);
  // The reason quotes the answer (a field name, a cursor): printable and bounded like any text
  // of the API's (error-text.ts).
  return new ApiError(`${request.method} ${path}: ${printableText(reason)}`, {
    status,
    body: printableText(body, ERROR_BODY_LIMIT),
    method: request.method,
    path,
    retryable: false,
  });
}

const SPOOL_SUFFIX = '.part';
/** A spool file older than this belongs to a process that died; it is removed. */
const ABANDONED_SPOOL_MS = 60 * 60_000;

/** Creates the spool folder and removes what dead processes left in it. */
async function prepareSpool(dir: string): Promise<void> {
  await makeFolder(dir);
  const cutoff = Date.now() - ABANDONED_SPOOL_MS;
  for (const name of await readdir(dir)) {
    if (!name.endsWith(SPOOL_SUFFIX)) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info !== undefined && info.mtimeMs < cutoff) await rm(path, { force: true });
  }
}

/**
 * `mkdir -p`, except that a read-only file system is reported as such: Node's recursive mkdir
 * turns EROFS into ENOENT, and the operator would look for a missing folder instead.
 */
async function makeFolder(dir: string): Promise<void> {
  try {
    await mkdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    if (code !== 'ENOENT') throw error;
    await mkdir(dir, { recursive: true });
  }
}
