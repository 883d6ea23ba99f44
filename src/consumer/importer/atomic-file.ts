/**
 * Durable file writes for the file importer. A file is flushed to disk before the call
 * resolves; its directory entry is durable only once the directory itself is flushed, which
 * the caller does with `syncDirectory` (after writing every file of a folder, once).
 */
import { copyFile, open, rename } from 'node:fs/promises';

/** Creates `path` (it must not exist) with `data`, flushed to disk. */
export async function writeFileDurably(path: string, data: Buffer): Promise<void> {
  const handle = await open(path, 'wx');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Moves the file at `from` to `to` (which must not exist) and flushes its data: a rename on one
 * file system (the spool folder sits in DOCUMENTS_DIR for that), a copy across two.
 */
export async function placeFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await copyFile(from, to);
  }
  const handle = await open(to, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Flushes a directory's entries (created, renamed files) to disk. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
