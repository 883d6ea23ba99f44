/**
 * The two kinds of ImportDocument the consumer hands an importer (importer.ts): a document in a
 * file (a large one, spooled while it downloaded; the documents of tests) and one held in
 * memory (every ordinary invoice: at most the API client's `memoryDocumentBytes`, 1 MiB).
 *
 * Both offer every accessor of the contract, so an importer written when every document was a
 * file keeps working: a document in memory is written to a spool file only when an importer
 * reads its `path`. The file importer takes the bytes of one in memory directly
 * (`heldBytes`), so an ordinary invoice is written once, where it stays.
 */
import { createReadStream, readFile } from 'node:fs';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import type { ImportDocument } from './importer.ts';

const readFileBytes = promisify(readFile) as (path: string) => Promise<Buffer>;

/** An ImportDocument for a file (large fetched documents; tests). */
export function fileDocument(file: {
  contentType: string;
  path: string;
  size: number;
  sha256: string;
}): ImportDocument {
  return {
    ...file,
    bytes: () => readFileBytes(file.path),
    stream: () => createReadStream(file.path),
  };
}

/** The bytes of documents held in memory, for the file importer; never copied. */
const held = new WeakMap<ImportDocument, Buffer>();

/**
 * An ImportDocument for bytes in memory. `spill` writes them to a file and answers its path,
 * the first time an importer reads `path`; whoever gives it owns that file (the consumer
 * removes it after import()).
 */
export function memoryDocument(
  document: { contentType: string; size: number; sha256: string; bytes: Buffer },
  spill: () => string,
): ImportDocument {
  const { bytes } = document;
  let path: string | undefined;
  const result: ImportDocument = {
    contentType: document.contentType,
    size: document.size,
    sha256: document.sha256,
    get path() {
      path ??= spill();
      return path;
    },
    // A copy, as a read of the file gave: an importer may change what it is given.
    bytes: async () => Buffer.from(bytes),
    stream: () => Readable.from([bytes], { objectMode: false }),
  };
  held.set(result, bytes);
  return result;
}

/** The bytes of a document made by memoryDocument (to write them without a copy), else undefined. */
export function heldBytes(document: ImportDocument): Buffer | undefined {
  return held.get(document);
}

/**
 * The ImportDocument of a document the API client fetched (api/document-calls.ts, described
 * here by shape so the contract does not depend on the client): held in memory when the client
 * kept it there, else its spool file.
 */
export function fetchedImportDocument(fetched: {
  contentType: string;
  size: number;
  sha256: string;
  bytes: Buffer | undefined;
  file(): string;
}): ImportDocument {
  const { contentType, size, sha256, bytes } = fetched;
  if (bytes === undefined) return fileDocument({ contentType, size, sha256, path: fetched.file() });
  return memoryDocument({ contentType, size, sha256, bytes }, () => fetched.file());
}
