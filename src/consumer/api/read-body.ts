/**
 * Reads an answer's body into memory within its bound, and the errors of every body read.
 *
 * Every read has a bound (the API is outside this process): a body larger than its sink allows
 * is cut off as soon as the count passes the limit (attempt.ts refuses one whose Content-Length
 * says so before any of it is read). Error bodies are kept only up to ERROR_READ_LIMIT. A
 * document's body is read by read-document.ts: in memory when small, in a spool file when not.
 *
 * A document that cannot be written to its spool file (a full or read-only disk) is a
 * SpoolWriteError: the fault is this host's, not the API's, and no retry of the call mends it.
 */
import type { Readable } from 'node:stream';

/** How much of an error answer's body is read at all; the rest is never buffered. */
export const ERROR_READ_LIMIT = 64 * 1024;

/** The answer is larger than the caller allows: the same call would fail the same way. */
export class BodyTooLarge extends Error {
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

/** Reads at most `maxBytes`: past it, `refuse` fails the read, `truncate` keeps the start. */
export async function readToMemory(
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
