/**
 * The file importer's folders (file-importer.ts): a message's folder is written whole in a
 * staging folder beside it (`.staging-<messageId>-<random>`) and renamed into place in one
 * step, so a folder under its final name is complete, and says so with its manifest. Staging
 * folders a dead writer left are removed when their shard is first used by a process.
 */
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { syncDirectory } from '../files/atomic-file.ts';
import { makeFolder } from '../files/make-folder.ts';

export const MANIFEST_FILE = 'manifest.json';
const STAGING_PREFIX = '.staging-';
/** A staging folder older than this belongs to a writer that died; it is removed. */
const ABANDONED_STAGING_MS = 60 * 60_000;

/**
 * Whether `folder` holds a complete import, one with its manifest. A synchronous stat,
 * on purpose: the answer is usually "no" (a message not imported yet), and the promise API
 * answers that with a thrown error, which costs far more than the microseconds of a stat on a
 * local file system.
 */
export function isComplete(folder: string): boolean {
  return statSync(join(folder, MANIFEST_FILE), { throwIfNoEntry: false }) !== undefined;
}

/** Makes a shard folder ready for staging folders; abandoned ones in it are removed. */
export async function prepareShard(shardDir: string): Promise<void> {
  // Not mkdir's recursive option: it tells a read-only disk as ENOENT (make-folder.ts).
  await makeFolder(shardDir);
  // The shard's and the transfer folder's own entries must be on disk too, or a crash
  // could lose all of it.
  await syncDirectory(dirname(shardDir));
  await syncDirectory(dirname(dirname(shardDir)));
  await removeAbandonedStaging(shardDir);
}

/** A new staging folder for `messageId` in the shard; `prepare` makes the shard again. */
export async function makeStagingFolder(
  shardDir: string,
  messageId: string,
  prepare: () => Promise<void>,
): Promise<string> {
  const staging = join(shardDir, `${STAGING_PREFIX}${messageId}-${randomUUID()}`);
  try {
    await mkdir(staging);
  } catch (error) {
    // The documents folder was removed while we ran (an operator cleaning up): make it again.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await prepare();
    await mkdir(staging);
  }
  return staging;
}

/**
 * Renames a complete staging folder to `target` in one step. False when another writer's
 * complete folder is already there. A folder there without a manifest (left half-written by
 * an earlier version of this importer) is moved aside and replaced.
 */
export async function moveIntoPlace(staging: string, target: string): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    try {
      await rename(staging, target);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
      if (isComplete(target)) return false;
      if (attempt > 0) throw error;
      const aside = `${staging}-incomplete`;
      await rename(target, aside);
      await rm(aside, { recursive: true, force: true });
    }
  }
}

async function removeAbandonedStaging(shardDir: string): Promise<void> {
  const cutoff = Date.now() - ABANDONED_STAGING_MS;
  for (const name of await readdir(shardDir)) {
    if (!name.startsWith(STAGING_PREFIX)) continue;
    const path = join(shardDir, name);
    const info = await stat(path).catch(() => undefined);
    if (info !== undefined && info.mtimeMs < cutoff)
      await rm(path, { recursive: true, force: true });
  }
}
