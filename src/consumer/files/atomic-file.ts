/**
 * Durable file writes for the file importer. A file is flushed to disk before the call
 * resolves; its directory entry is durable only once the directory itself is flushed, which
 * the caller does with `syncDirectory` (after writing every file of a folder, once).
 *
 * They use file descriptors (file-descriptors.ts beside it) rather than the promise API's FileHandle
 * objects: the same system calls, with a fraction of the work on the event loop, which matters
 * at hundreds of imports a second.
 */
import { copyFile, rename } from 'node:fs';
import { promisify } from 'node:util';
import { fsyncFd, withFd, writeAll } from './file-descriptors.ts';

const renamePath = promisify(rename);
const copyPath = promisify(copyFile);

/** Creates `path` (it must not exist) with `data`, flushed to disk. */
export async function writeFileDurably(path: string, data: Buffer): Promise<void> {
  await withFd(path, 'wx', async (fd) => {
    await writeAll(fd, data);
    await fsyncFd(fd);
  });
}

/**
 * Moves the file at `from` to `to` (which must not exist) and flushes its data: a rename on one
 * file system (the spool folder sits in DOCUMENTS_DIR for that), a copy across two.
 */
export async function placeFile(from: string, to: string): Promise<void> {
  try {
    await renamePath(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await copyPath(from, to);
  }
  await withFd(to, 'r', (fd) => fsyncFd(fd));
}

/** Flushes a directory's entries (created, renamed files) to disk. */
export async function syncDirectory(dir: string): Promise<void> {
  await withFd(dir, 'r', (fd) => fsyncFd(fd));
}
