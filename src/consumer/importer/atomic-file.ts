/**
 * Crash-safe file writes. A file is written under a temporary name, flushed to disk, and then
 * renamed over its final name, so a reader (or the next attempt after a crash) sees either
 * nothing or the whole file, never a torn one. The rename is durable only once the directory
 * itself is flushed, which the caller does with `syncDirectory`.
 */
import { randomUUID } from 'node:crypto';
import { open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

const TEMP_MARKER = '.tmp-';

/** Writes `data` to `dir/name` atomically; the rename still needs `syncDirectory(dir)`. */
export async function writeFileAtomic(dir: string, name: string, data: Buffer): Promise<void> {
  // A unique temp name per call: two writers never share a temp file, whatever happens.
  const temp = join(dir, `.${name}${TEMP_MARKER}${randomUUID()}`);
  try {
    const handle = await open(temp, 'wx');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, join(dir, name));
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
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

/** Removes temp files a crashed write left behind in `dir`. */
export async function removeTempFiles(dir: string): Promise<void> {
  const names = await readdir(dir);
  await Promise.all(
    names
      .filter((name) => name.startsWith('.') && name.includes(TEMP_MARKER))
      .map((name) => rm(join(dir, name), { force: true })),
  );
}
