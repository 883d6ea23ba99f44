import type { Logger } from 'pino';
import { redactUserinfo } from '../text/redact-userinfo.ts';

export interface ApiClientOptions {
  /**
   * Base URL of the messaging API, for example `https://api.example.com/v1`. A path prefix is
   * kept; every call path is appended to it.
   */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>` on every request; never logged. */
  token: string;
  /**
   * Longest wait for the answer's headers once the request is sent, and for each next piece of
   * its body (undici's headersTimeout and bodyTimeout). Also the window over which
   * `minBytesPerSecond` is averaged.
   * @default 10000
   */
  timeoutMs?: number;
  /**
   * Overall deadline of one call: every attempt, the waits between them, the headers and the
   * whole body. A server that answers a byte at a time, each under `timeoutMs`, costs at most
   * this. A document's deadline leaves time for its size (`minBytesPerSecond`). Passing it is not
   * retried within the call: the caller (the worker's backoff) asks again later.
   * @default 60000
   */
  deadlineMs?: number;
  /**
   * Slowest body accepted, averaged over each `timeoutMs` from the headers (so a slow start
   * within the first window is tolerated); a slower one is given up. A document's deadline is
   * `deadlineMs` plus the time `maxDocumentBytes` takes at this rate.
   * @default 65536 (64 KiB/s)
   */
  minBytesPerSecond?: number;
  /**
   * Retries after the first attempt for transient failures (network errors, timeouts, 5xx,
   * 429); 0 disables retrying.
   * @default 4
   */
  maxRetries?: number;
  /**
   * Scale of the exponential backoff: the wait before retry n is uniform in
   * [0, min(retryMaxDelayMs, retryBaseDelayMs * 2^n)).
   * @default 250
   */
  retryBaseDelayMs?: number;
  /**
   * Upper bound of any wait between attempts, also of a Retry-After the server asks for.
   * @default 10000
   */
  retryMaxDelayMs?: number;
  /**
   * Folder where fetched documents too large to keep in memory are written while they download
   * (created when missing); each is a file the caller moves or removes. Put it on the file
   * system of the documents so that an importer can rename a document into place.
   * @default the OS temporary folder
   */
  spoolDir?: string;
  /**
   * Largest document (core document, transaction JSON) the client fetches, checked on
   * Content-Length and counted while it arrives. @default 104857600 (100 MiB)
   */
  maxDocumentBytes?: number;
  /**
   * Largest document kept in memory: one that ends within it is handed over as bytes, with no
   * file; a larger one (by its Content-Length, or once it passes this while it arrives) goes to
   * a spool file. An invoice's documents are a few KiB to a few hundred.
   * @default 1048576 (1 MiB)
   */
  memoryDocumentBytes?: number;
  /**
   * Bound of the bytes all documents kept in memory hold at once (until each is discarded): a
   * document that would pass it is spooled instead, however small. Bounds the memory of
   * WORKER_CONCURRENCY messages fetched at once, whatever their documents.
   * @default 16777216 (16 MiB)
   */
  memoryBudgetBytes?: number;
  /**
   * Receives a warn line for each retry (method, path, status or error, attempt, delay).
   * @default no logging
   */
  logger?: Logger;
  /**
   * Source of jitter, a number in [0, 1); tests pass a fixed one.
   * @default Math.random
   */
  random?: () => number;
  /**
   * Waits between attempts; tests pass one that records the delay instead of waiting.
   * @default setTimeout from node:timers/promises
   */
  sleep?: (ms: number) => Promise<void>;
}

export interface ResolvedApiClientOptions {
  origin: string;
  /** Path of the base URL without a trailing slash, `''` when there is none. */
  pathPrefix: string;
  token: string;
  timeoutMs: number;
  deadlineMs: number;
  minBytesPerSecond: number;
  maxRetries: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  spoolDir: string;
  maxDocumentBytes: number;
  memoryDocumentBytes: number;
  memoryBudgetBytes: number;
  logger: Logger | undefined;
  random: () => number;
  sleep: (ms: number) => Promise<void>;
}

/** Applies the defaults and rejects options that would make the client misbehave later. */
export function resolveApiClientOptions(
  options: ApiClientOptions,
  defaults: { sleep: (ms: number) => Promise<void>; spoolDir: string },
): ResolvedApiClientOptions {
  let url: URL;
  try {
    url = new URL(options.baseUrl);
  } catch {
    throw new TypeError(
      `ApiClientOptions.baseUrl is not a URL: ${JSON.stringify(redactUserinfo(options.baseUrl))}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`ApiClientOptions.baseUrl must be http or https, got ${url.protocol}`);
  }
  if (url.search !== '' || url.hash !== '') {
    throw new TypeError('ApiClientOptions.baseUrl must not have a query or fragment');
  }
  if (options.token === '') throw new TypeError('ApiClientOptions.token must not be empty');
  return {
    origin: url.origin,
    pathPrefix: url.pathname.replace(/\/+$/, ''),
    token: options.token,
    timeoutMs: count('timeoutMs', options.timeoutMs, 10_000, 1),
    deadlineMs: count('deadlineMs', options.deadlineMs, 60_000, 1),
    minBytesPerSecond: count('minBytesPerSecond', options.minBytesPerSecond, 65_536, 1),
    maxRetries: count('maxRetries', options.maxRetries, 4, 0),
    retryBaseDelayMs: count('retryBaseDelayMs', options.retryBaseDelayMs, 250, 0),
    retryMaxDelayMs: count('retryMaxDelayMs', options.retryMaxDelayMs, 10_000, 0),
    spoolDir: options.spoolDir ?? defaults.spoolDir,
    maxDocumentBytes: count('maxDocumentBytes', options.maxDocumentBytes, 104_857_600, 1),
    // 0 keeps none in memory: every document is spooled, as before 0.3.
    memoryDocumentBytes: count('memoryDocumentBytes', options.memoryDocumentBytes, 1_048_576, 0),
    memoryBudgetBytes: count('memoryBudgetBytes', options.memoryBudgetBytes, 16_777_216, 0),
    logger: options.logger,
    random: options.random ?? Math.random,
    sleep: options.sleep ?? defaults.sleep,
  };
}

function count(name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) {
    throw new TypeError(`ApiClientOptions.${name} must be an integer >= ${min}, got ${value}`);
  }
  return value;
}
