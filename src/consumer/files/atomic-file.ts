/**
 * Durable file writes for the file importer. A file is flushed to disk before the call
 * resolves; its directory entry is durable only once the directory itself is flushed, which
 * the caller does with `syncDirectory` (after writing every file of a folder, once).
 *
 * Which calls go to libuv's pool, and which run at once on the event loop: each hand-off to the
 * pool costs about 10 us of CPU (a queue, a thread woken, its answer woken back; measured on the
 * 2-core bench machine against the same calls made at once), more than the calls that only touch
 * memory. So the pool gets what may wait on the disk: creating a file (its inode), a large
 * write, every fsync. Closing a descriptor, opening a folder that exists (to flush it) and a
 * write of a few KiB into the page cache run at once: microseconds each, and an import makes
 * half as many hand-offs (12 instead of 24 for an ordinary invoice).
 *
 * They use file descriptors (file-descriptors.ts beside it) rather than the promise API's
 * FileHandle objects: the same system calls, with a fraction of the work on the event loop.
 */
import { closeSync, copyFile, openSync, rename } from 'node:fs';
import { promisify } from 'node:util';
import { fsyncFd, openFd, writeAll, writeAllSync } from './file-descriptors.ts';

const renamePath = promisify(rename);
const copyPath = promisify(copyFile);

/**
 * Writes up to this size are made at once: a copy into the page cache, a few microseconds for
 * an invoice's few KiB. A larger one (a document up to 1 MiB, a PDF) goes to the pool.
 */
export const WRITE_AT_ONCE_BYTES = 64 * 1024;

/**
 * Creates each file (none may exist) with its data, and flushes them all. The files are
 * created one after another, then written and flushed side by side (each fsync on a thread of
 * the pool). Not created side by side: a create holds its folder's lock while the file system
 * looks for a free inode, and creates in one folder at once spin on that lock (perf showed it
 * as rwsem_spin_on_owner under path_openat: CPU burnt while waiting for nothing else).
 */
export async function writeFilesDurably(
  files: ReadonlyArray<{ path: string; data: Buffer }>,
): Promise<void> {
  const fds: number[] = [];
  try {
    for (const file of files) fds.push(await openFd(file.path, 'wx'));
    await Promise.all(
      files.map(async (file, i) => {
        const fd = fds[i] as number;
        if (file.data.length <= WRITE_AT_ONCE_BYTES) writeAllSync(fd, file.data);
        else await writeAll(fd, file.data);
        await fsyncFd(fd);
      }),
    );
  } finally {
    for (const fd of fds) closeSync(fd);
  }
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
  await flushExisting(to);
}

/** Flushes a directory's entries (created, renamed files) to disk. */
export async function syncDirectory(dir: string): Promise<void> {
  await flushExisting(dir);
}

/** fsync of a file or folder that exists: opened and closed at once, flushed in the pool. */
async function flushExisting(path: string): Promise<void> {
  const fd = openSync(path, 'r');
  try {
    await fsyncFd(fd);
  } finally {
    closeSync(fd);
  }
}
