/**
 * Reads a request body with a hard limit counted on the wire, as it arrives. Nothing is
 * decompressed here (the webhook route refuses any Content-Encoding before calling this), so
 * the bytes counted are the bytes held: a small compressed body cannot grow into a large one.
 */
import type { IncomingMessage } from 'node:http';

/** The body passed the limit; reading stopped at the first byte over it. */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
  readonly limit: number;
  constructor(limit: number) {
    super(`The body is larger than ${limit} bytes.`);
    this.limit = limit;
  }
}

/** The body's next bytes do not fit the in-flight budget (WEBHOOK_MAX_INFLIGHT_BYTES). */
export class BodyOverBudgetError extends Error {
  override readonly name = 'BodyOverBudgetError';
  constructor() {
    super('The body does not fit the bytes the consumer holds at once.');
  }
}

/** The client went away before the body was complete; there is nobody left to answer. */
export class BodyAbortedError extends Error {
  override readonly name = 'BodyAbortedError';
  constructor() {
    super('The client closed the connection before the body was complete.');
  }
}

/**
 * The declared body length: a number from Content-Length, 0 when the request has neither
 * Content-Length nor Transfer-Encoding (no body in HTTP/1.1), undefined when it is chunked.
 * Node's parser has already refused malformed or conflicting framing headers with a 400.
 */
export function declaredLength(req: IncomingMessage): number | undefined {
  const header = req.headers['content-length'];
  if (header !== undefined) return Number(header);
  return req.headers['transfer-encoding'] === undefined ? 0 : undefined;
}

/**
 * Resolves with the whole body, or rejects with BodyTooLargeError as soon as more than `limit`
 * bytes arrived, with BodyOverBudgetError as soon as `take` refuses a chunk (the bytes held
 * over all requests, admission.ts), or with BodyAbortedError. After a rejection the rest of
 * the body is left for the caller to discard (see discardBody).
 */
export function readBody(
  req: IncomingMessage,
  limit: number,
  take: (bytes: number) => boolean,
): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const declared = declaredLength(req);
    if (declared !== undefined && declared > limit) {
      reject(new BodyTooLargeError(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) {
        cleanup();
        chunks.length = 0;
        reject(new BodyTooLargeError(limit));
        return;
      }
      if (!take(chunk.length)) {
        cleanup();
        chunks.length = 0;
        reject(new BodyOverBudgetError());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(ownBuffer(chunks, received));
    };
    const onAbort = () => {
      cleanup();
      reject(new BodyAbortedError());
    };
    const onClose = () => {
      if (!req.complete) onAbort();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAbort);
    req.on('close', onClose);
  });
}

/**
 * The body in a buffer of exactly its size with memory of its own: the one chunk as it came
 * when it is that already (Node's HTTP parser hands each chunk in a buffer of its own), else
 * the chunks copied into one. Not Buffer.concat: it takes a result under 4 KiB (most
 * webhooks arriving in more than one packet) from Node's shared 8 KiB pool, and the SQLite
 * store hands the body to its writer thread by structured clone, which copies the whole memory
 * behind a buffer: the pool's 8 KiB, other requests' bytes included, for a 3 KB body.
 */
function ownBuffer(chunks: readonly Buffer[], length: number): Buffer {
  const [first] = chunks;
  if (
    chunks.length === 1 &&
    first !== undefined &&
    first.byteOffset === 0 &&
    first.buffer.byteLength === length
  ) {
    return first;
  }
  const body = Buffer.allocUnsafeSlow(length);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.length;
  }
  return body;
}

/** What discardBody reads at most before it closes the connection instead. */
export const DISCARD_LIMIT_BYTES = 64 * 1024;
/** How long discardBody waits for the rest of a body before it closes the connection. */
export const DISCARD_TIMEOUT_MS = 5_000;

/**
 * Called when a request is answered without (all of) its body being read. A small rest is read
 * and thrown away so the connection stays usable and the client sees the answer; a large or
 * slow rest closes the connection. Without this, Node would read an unanswered body to its end
 * however large it is.
 */
export function discardBody(req: IncomingMessage): void {
  if (req.complete || req.destroyed) return;
  let discarded = 0;
  const close = () => req.socket.destroy();
  const timer = setTimeout(close, DISCARD_TIMEOUT_MS);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_LIMIT_BYTES) close();
  });
  req.once('close', () => clearTimeout(timer));
  req.resume();
}
