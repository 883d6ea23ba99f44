/**
 * Reads a document's body (a core document, a transaction JSON) within its bound: into memory
 * when it is small, into a spool file when it is not.
 *
 * Most documents are an invoice of a few KiB. Kept in memory, such a document is written once,
 * where it stays, by the importer: no spool file to create, fill, rename and remove, and the
 * transaction JSON is validated from the bytes in hand. A document larger than the sink's
 * `memoryBytes` (by its Content-Length, or once it passes that while arriving), or one the
 * client's memory budget cannot hold, goes to the spool file instead: what has arrived so far is
 * written there first, and the rest streams after it, never held whole.
 *
 * Either way the body is counted and hashed as it arrives, cut off as soon as it passes
 * `maxBytes`, and a JSON one is scanned for its shape (protocol/json-shape.ts), so nothing over
 * a limit is ever handed to anyone. A spool file that cannot be written (a full or read-only
 * disk) is a SpoolWriteError: the fault is this host's, not the API's.
 */
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { createJsonShapeScanner } from '../../protocol/index.ts';
import { closeFd, openFd, writeAll } from '../files/file-descriptors.ts';
import { BodyTooLarge, SpoolWriteError } from './read-body.ts';
import type { ResponseSink } from './request.ts';

/** A document as received: its bytes in memory, or the spool file holding them. */
export type ReceivedDocument = {
  size: number;
  /** SHA-256 of the bytes, lowercase hex, computed while they arrived. */
  sha256: string;
} & (
  | {
      /** The bytes, taken from the sink's memory budget until the caller gives them back. */
      bytes: Buffer;
      path?: undefined;
    }
  | { path: string; bytes?: undefined }
);

type DocumentSink = Extract<ResponseSink, { to: 'document' }>;

/**
 * Reads `body` whole. `declared` is the Content-Length, when the answer gave one: a document
 * announced larger than `memoryBytes` goes straight to its file. The spool folder is touched
 * only then. (File descriptors, not FileHandles: the same system calls for less work on the
 * event loop.)
 */
export async function readToDocument(
  body: Readable,
  sink: DocumentSink,
  declared: number | undefined,
  received: (bytes: number) => void,
): Promise<ReceivedDocument> {
  const { maxBytes, memory } = sink;
  const shape = sink.shape === undefined ? undefined : createJsonShapeScanner(sink.shape);
  const hash = createHash('sha256');
  // In memory until it passes memoryBytes or the budget; then `chunks` is written to the file.
  let chunks: Buffer[] | undefined =
    declared !== undefined && declared > sink.memoryBytes ? undefined : [];
  let taken = 0;
  let file: SpoolFile | undefined;
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
      if (chunks !== undefined) {
        if (size <= sink.memoryBytes && memory.take(chunk.length)) {
          taken += chunk.length;
          chunks.push(chunk);
          continue;
        }
        // Too large for memory after all: what arrived so far goes first.
        file = await openSpoolFile(sink);
        for (const held of chunks) await file.write(held);
        memory.give(taken);
        taken = 0;
        chunks = undefined;
      }
      file ??= await openSpoolFile(sink);
      await file.write(chunk);
    }
    // A body announced large that came empty never opened its file.
    file ??= chunks === undefined ? await openSpoolFile(sink) : undefined;
    await file?.close();
  } catch (error) {
    memory.give(taken);
    await file?.remove();
    throw error;
  }
  const sha256 = hash.digest('hex');
  // One buffer of its own: the chunks may be views of larger ones the connection reuses.
  if (file === undefined) return { size, sha256, bytes: Buffer.concat(chunks ?? [], size) };
  return { size, sha256, path: file.path };
}

/** A spool file being written; any failure of it is a SpoolWriteError. */
interface SpoolFile {
  path: string;
  write(chunk: Buffer): Promise<void>;
  close(): Promise<void>;
  /** After a failure: closed if still open, and removed, so no partial file is left. */
  remove(): Promise<void>;
}

async function openSpoolFile(sink: DocumentSink): Promise<SpoolFile> {
  const path = await sink.spoolFile();
  const local = (error: unknown): never => {
    throw new SpoolWriteError(path, error);
  };
  const fd = await openFd(path, 'w').catch(local);
  let open = true;
  return {
    path,
    write: (chunk) => writeAll(fd, chunk).catch(local),
    async close() {
      open = false;
      await closeFd(fd).catch(local);
    },
    async remove() {
      if (open) await closeFd(fd).catch(() => {});
      open = false;
      await rm(path, { force: true }).catch(() => {});
    },
  };
}
