/**
 * Reads an answer's body within its bound, into memory or into a spool file.
 *
 * Every read has a bound (the API is outside this process): a body larger than its sink allows
 * is cut off as soon as the count passes the limit (attempt.ts refuses one whose Content-Length
 * says so before any of it is read). Error bodies are kept only up to ERROR_READ_LIMIT. A file
 * sink may also bound the shape of the JSON it receives (a transaction JSON, which the importer
 * parses): the bytes are scanned as they arrive and the download stops at the first limit
 * passed, before the file is handed to anyone (protocol/json-shape.ts).
 *
 * A document that cannot be written to its local file (a full or read-only disk) is a
 * SpoolWriteError: the fault is this host's, not the API's, and no retry of the call mends it.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { createJsonShapeScanner } from '../../protocol/index.ts';
import { closeFd, openFd, writeAll } from '../files/file-descriptors.ts';
import type { ResponseSink } from './request.ts';

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

/**
 * Streams the body to `path`, counting and hashing it; never more than `maxBytes`. (A file
 * descriptor, not a FileHandle: the same system calls for less work on the event loop.) A
 * failure of the local file (open, write, close: a full or read-only disk) is a
 * SpoolWriteError, never mistaken for the API's.
 */
export async function readToFile(
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
