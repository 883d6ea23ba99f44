/**
 * The spool folder, where fetched documents too large to keep in memory are written while they
 * download: made when first needed, cleared of what dead processes left in it, and a fresh file
 * name for each download. A document kept in memory is written here only when a reader asks
 * for a file.
 */
import { randomUUID } from 'node:crypto';
import { statSync, writeFileSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { makeFolder, makeFolderSync } from '../files/make-folder.ts';
import { SpoolWriteError } from './read-body.ts';

export interface SpoolFolder {
  /**
   * A path for a new spool file; the folder is prepared first (a SpoolWriteError when it
   * cannot be).
   */
  newFile(): Promise<string>;
  /**
   * Writes `bytes` to a new spool file at once and answers its path: a document kept in memory,
   * for a reader that wants a file (at most the client's `memoryDocumentBytes`, so the wait is
   * short). A SpoolWriteError when the file cannot be written.
   */
  writeFileNow(bytes: Buffer): string;
}

const SPOOL_SUFFIX = '.part';
/** A spool file older than this belongs to a process that died; it is removed. */
const ABANDONED_SPOOL_MS = 60 * 60_000;

export function createSpoolFolder(dir: string): SpoolFolder {
  let ready: Promise<unknown> | undefined;
  return {
    newFile: async () => {
      // Once per client; a failure (a folder that cannot be made) is tried again next time.
      ready ??= prepareSpool(dir).catch((error: unknown) => {
        ready = undefined;
        throw new SpoolWriteError(dir, error);
      });
      await ready;
      return join(dir, `${randomUUID()}${SPOOL_SUFFIX}`);
    },
    writeFileNow: (bytes) => {
      const path = join(dir, `${randomUUID()}${SPOOL_SUFFIX}`);
      try {
        try {
          writeFileSync(path, bytes, { flag: 'wx' });
        } catch (error) {
          // The folder was removed meanwhile (or never made: no download went to a file yet).
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
          makeFolderSync(dir);
          writeFileSync(path, bytes, { flag: 'wx' });
        }
      } catch (error) {
        throw new SpoolWriteError(path, error);
      }
      return path;
    },
  };
}

/**
 * Removes a spool file unless it was moved away (the usual case for a file an importer renamed
 * into place: a stat answers that without the thrown error of removing a missing file).
 */
export async function removeIfLeft(path: string): Promise<void> {
  if (statSync(path, { throwIfNoEntry: false }) !== undefined) await rm(path, { force: true });
}

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
