/**
 * The default importer: writes each inbound message's documents to
 * `<documentsDir>/<transfer>/<messageId>/`:
 *
 *   core.xml | core.json | core.pdf | core.bin   the core document, named by its content type
 *   transaction.json                             the transaction JSON, bytes as received
 *   descriptor.json                              the message descriptor
 *   manifest.json                                written last: the commit marker
 *
 * Each file is written atomically. manifest.json is renamed into place only after the other
 * files and their directory entries are on disk, so "manifest.json exists" means "the import
 * is complete and durable"; a directory without it is an import that crashed halfway, and the
 * next attempt simply writes everything again.
 */
import { createHash } from 'node:crypto';
import { access, mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { TRANSFERS } from '../../protocol/index.ts';
import { removeTempFiles, syncDirectory, writeFileAtomic } from './atomic-file.ts';
import {
  type Importer,
  type ImportInput,
  type ImportResult,
  PermanentImportError,
} from './importer.ts';

export interface FileImporterOptions {
  /** Root of the documents tree, DOCUMENTS_DIR in the consumer's configuration. */
  documentsDir: string;
  /**
   * Receives an info line per import.
   * @default no logging
   */
  logger?: Logger;
}

export const MANIFEST_FILE = 'manifest.json';

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
  // Imports of one message in this process run one after the other, so the second sees the
  // first one's manifest. (Other processes on the same directory are safe too: every write
  // uses its own temp name and renames over identical content.)
  const inFlight = new Map<string, Promise<unknown>>();

  async function importOnce(input: ImportInput): Promise<ImportResult> {
    const files = plannedFiles(input);
    const transferDir = join(root, input.transfer);
    const messageDir = join(transferDir, input.messageId);
    if (await exists(join(messageDir, MANIFEST_FILE))) {
      logger?.debug({ messageId: input.messageId, location: messageDir }, 'already imported');
      return { status: 'already_imported', location: messageDir };
    }

    await mkdir(messageDir, { recursive: true });
    // The new directory's own entry must be on disk too, or a crash could lose the whole of it.
    await syncDirectory(transferDir);
    await syncDirectory(dirname(transferDir));
    await removeTempFiles(messageDir);
    for (const file of files) await writeFileAtomic(messageDir, file.name, file.data);
    // The data files must be durable before the manifest claims they are there.
    await syncDirectory(messageDir);

    const manifest: Manifest = {
      messageId: input.messageId,
      transfer: input.transfer,
      importedAt: new Date().toISOString(),
      files: files.map((file) => ({
        name: file.name,
        contentType: file.contentType,
        size: file.data.length,
        sha256: createHash('sha256').update(file.data).digest('hex'),
      })),
    };
    await writeFileAtomic(
      messageDir,
      MANIFEST_FILE,
      Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`),
    );
    await syncDirectory(messageDir);
    logger?.info({ messageId: input.messageId, location: messageDir }, 'documents imported');
    return { status: 'imported', location: messageDir };
  }

  return {
    async import(input) {
      // Checked before anything touches the disk: these inputs fail the same way every time.
      validate(input);
      const key = `${input.transfer}/${input.messageId}`;
      const previous = inFlight.get(key) ?? Promise.resolve();
      const current = previous.catch(() => undefined).then(() => importOnce(input));
      inFlight.set(key, current);
      try {
        return await current;
      } finally {
        if (inFlight.get(key) === current) inFlight.delete(key);
      }
    },
  };
}

function validate(input: ImportInput): void {
  if (!SAFE_SEGMENT.test(input.messageId)) {
    throw new PermanentImportError(
      `messageId ${JSON.stringify(input.messageId)} is not a safe file name ` +
        '(letters, digits, ".", "_", "-", starting with a letter or digit)',
    );
  }
  if (!(TRANSFERS as readonly string[]).includes(input.transfer)) {
    throw new PermanentImportError(`unknown transfer ${JSON.stringify(input.transfer)}`);
  }
  if (input.coreDocument.body.length === 0) {
    throw new PermanentImportError('the core document is empty');
  }
  try {
    JSON.parse(input.transaction.body.toString('utf8'));
  } catch (error) {
    throw new PermanentImportError('the transaction data is not valid JSON', { cause: error });
  }
}

interface PlannedFile {
  name: string;
  contentType: string;
  data: Buffer;
}

function plannedFiles(input: ImportInput): PlannedFile[] {
  return [
    {
      name: coreFileName(input.coreDocument.contentType),
      contentType: input.coreDocument.contentType,
      data: input.coreDocument.body,
    },
    {
      name: 'transaction.json',
      contentType: input.transaction.contentType,
      data: input.transaction.body,
    },
    {
      name: 'descriptor.json',
      contentType: 'application/json',
      data: Buffer.from(`${JSON.stringify(input.descriptor, null, 2)}\n`),
    },
  ];
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

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
