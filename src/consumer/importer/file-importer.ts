/**
 * The default importer: writes each inbound message's documents to
 * `<documentsDir>/<transfer>/<shard>/<messageId>/`, where the shard is the first two hex digits
 * of the SHA-256 of the messageId: 256 folders per transfer, so that no folder holds a year of
 * invoices (a year at 5,000 a day is about 7,000 per shard):
 *
 *   core.xml | core.json | core.pdf | core.bin   the core document, named by its content type
 *   transaction.json                             the transaction JSON, bytes as received
 *   descriptor.json                              the message descriptor
 *   manifest.json                                what the folder holds, with checksums
 *
 * Every call writes into a staging folder of its own beside the final one
 * (`.staging-<messageId>-<random>`), flushes it, and renames it into place in one step. So a
 * reader sees either no folder or a complete one, a crash leaves only a staging folder (removed
 * later), and two writers of one message never touch each other's files: the second rename
 * finds the folder there and its writer reports `already_imported`.
 *
 * Versions before the shards wrote `<documentsDir>/<transfer>/<messageId>/`; a message found
 * there is already imported, and stays where it is.
 */
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { TRANSFERS } from '../../protocol/index.ts';
import { placeFile, syncDirectory, writeFilesDurably } from '../files/atomic-file.ts';
import { heldBytes } from './import-documents.ts';
import {
  type ImportDocument,
  type Importer,
  type ImportInput,
  type ImportResult,
  PermanentImportError,
} from './importer.ts';
import {
  isComplete,
  MANIFEST_FILE,
  makeStagingFolder,
  moveIntoPlace,
  prepareShard,
} from './staging-folder.ts';

export { MANIFEST_FILE } from './staging-folder.ts';

export interface FileImporterOptions {
  /** Root of the documents tree, DOCUMENTS_DIR in the consumer's configuration. */
  documentsDir: string;
  /**
   * Receives an info line per import.
   * @default no logging
   */
  logger?: Logger;
}

export interface Manifest {
  messageId: string;
  transfer: string;
  importedAt: string;
  files: Array<{ name: string; contentType: string; size: number; sha256: string }>;
}

// One path segment of letters, digits, `.`, `_`, `-`, starting with a letter or digit: rules
// out `..`, `/`, `\`, NUL and hidden names, so a messageId can never leave its directory.
const SAFE_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export function createFileImporter(options: FileImporterOptions): Importer {
  const root = resolve(options.documentsDir);
  const logger = options.logger;
  /** Shard folders this process has created, flushed and cleaned up already. */
  const prepared = new Set<string>();

  async function importOnce(input: ImportInput): Promise<ImportResult> {
    const files = plannedFiles(input);
    const messageDir = documentFolder(root, input.transfer, input.messageId);
    const shardDir = dirname(messageDir);
    for (const location of [messageDir, join(root, input.transfer, input.messageId)]) {
      if (isComplete(location)) {
        logger?.debug({ messageId: input.messageId, location }, 'already imported');
        return { status: 'already_imported', location };
      }
    }

    // Once per process is enough: prepared shards are remembered.
    const prepare = async () => {
      await prepareShard(shardDir);
      prepared.add(shardDir);
    };
    if (!prepared.has(shardDir)) await prepare();
    const staging = await makeStagingFolder(shardDir, input.messageId, prepare);
    let moved = false;
    try {
      input.signal.throwIfAborted();
      await writeStaging(staging, files, manifestOf(input, files));
      input.signal.throwIfAborted();
      if (!(await moveIntoPlace(staging, messageDir))) {
        logger?.debug({ messageId: input.messageId }, 'imported meanwhile by another writer');
        return { status: 'already_imported', location: messageDir };
      }
      moved = true;
      await syncDirectory(shardDir);
    } finally {
      // Renamed into place, the staging folder is gone; otherwise it is removed with its files.
      if (!moved) await rm(staging, { recursive: true, force: true });
    }
    logger?.info({ messageId: input.messageId, location: messageDir }, 'documents imported');
    return { status: 'imported', location: messageDir };
  }

  return {
    async import(input) {
      // Checked before anything is written: these inputs fail the same way every time.
      await validate(input);
      return importOnce(input);
    },
  };
}

/** Where the documents of a message go: `<root>/<transfer>/<shard>/<messageId>`. */
export function documentFolder(root: string, transfer: string, messageId: string): string {
  const shard = createHash('sha256').update(messageId).digest('hex').slice(0, 2);
  return join(root, transfer, shard, messageId);
}

/**
 * Writes the files and the manifest into the staging folder and flushes them. The folder
 * becomes visible only by its rename, so the files can be written and flushed at once (each
 * fsync on its own thread of libuv's pool), and the folder flushed once for all of them.
 */
async function writeStaging(
  staging: string,
  files: PlannedFile[],
  manifest: Manifest,
): Promise<void> {
  const written = files.flatMap((file) =>
    'data' in file ? [{ path: join(staging, file.name), data: file.data }] : [],
  );
  written.push({
    path: join(staging, MANIFEST_FILE),
    data: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`),
  });
  await Promise.all([
    writeFilesDurably(written),
    ...files.flatMap((file) =>
      'from' in file ? [placeFile(file.from, join(staging, file.name))] : [],
    ),
  ]);
  // The files must be durable before the folder appears under its final name.
  await syncDirectory(staging);
}

function manifestOf(input: ImportInput, files: PlannedFile[]): Manifest {
  return {
    messageId: input.messageId,
    transfer: input.transfer,
    importedAt: new Date().toISOString(),
    files: files.map(({ name, contentType, size, sha256 }) => ({
      name,
      contentType,
      size,
      sha256,
    })),
  };
}

async function validate(input: ImportInput): Promise<void> {
  if (!SAFE_SEGMENT.test(input.messageId)) {
    throw new PermanentImportError(
      `messageId ${JSON.stringify(input.messageId)} is not a safe file name ` +
        '(letters, digits, ".", "_", "-", starting with a letter or digit)',
    );
  }
  if (!(TRANSFERS as readonly string[]).includes(input.transfer)) {
    throw new PermanentImportError(`unknown transfer ${JSON.stringify(input.transfer)}`);
  }
  if (input.coreDocument.size === 0) {
    throw new PermanentImportError('the core document is empty');
  }
  try {
    // The bytes in hand when the document is held in memory (the usual case): no read.
    const transaction = heldBytes(input.transaction) ?? (await input.transaction.bytes());
    JSON.parse(transaction.toString('utf8'));
  } catch (error) {
    throw new PermanentImportError('the transaction data is not valid JSON', { cause: error });
  }
}

/**
 * A file of the message's folder: bytes to write (the descriptor, a document held in memory),
 * or a document's file to move into place (a large one, spooled while it arrived).
 */
type PlannedFile = { name: string; contentType: string; size: number; sha256: string } & (
  | { from: string }
  | { data: Buffer }
);

function plannedFiles(input: ImportInput): PlannedFile[] {
  const descriptor = Buffer.from(`${JSON.stringify(input.descriptor, null, 2)}\n`);
  return [
    documentFile(coreFileName(input.coreDocument.contentType), input.coreDocument),
    documentFile('transaction.json', input.transaction),
    {
      name: 'descriptor.json',
      contentType: 'application/json',
      size: descriptor.length,
      sha256: createHash('sha256').update(descriptor).digest('hex'),
      data: descriptor,
    },
  ];
}

function documentFile(name: string, document: ImportDocument): PlannedFile {
  const { contentType, size, sha256 } = document;
  // Held in memory (every ordinary document): written from its bytes, no file to move.
  const bytes = heldBytes(document);
  return bytes === undefined
    ? { name, contentType, size, sha256, from: document.path }
    : { name, contentType, size, sha256, data: bytes };
}

/** `application/xml`, `text/xml` and `application/*+xml` are all XML, and so on. */
export function coreFileName(contentType: string): string {
  const type = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  const subtype = type.slice(type.indexOf('/') + 1);
  if (subtype === 'xml' || subtype.endsWith('+xml')) return 'core.xml';
  if (subtype === 'json' || subtype.endsWith('+json')) return 'core.json';
  if (type === 'application/pdf') return 'core.pdf';
  return 'core.bin';
}
