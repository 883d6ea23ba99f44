/**
 * Durable file writes for the file importer. A file is flushed to disk before the call
 * resolves; its directory entry is durable only once the directory itself is flushed, which
 * the caller does with `syncDirectory` (after writing every file of a folder, once).
 */
import { open } from 'node:fs/promises';

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

/** Flushes a directory's entries (created, renamed files) to disk. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
