/**
 * The spool folder, where fetched documents are written while they download: made when first
 * needed, cleared of what dead processes left in it, and a fresh file name for each download.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

export interface SpoolFolder {
  /** A path for a new spool file; the folder is prepared first. */
  newFile(): Promise<string>;
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
        throw error;
      });
      await ready;
      return join(dir, `${randomUUID()}${SPOOL_SUFFIX}`);
    },
  };
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

/**
 * `mkdir -p`, except that a read-only file system is reported as such: Node's recursive mkdir
 * turns EROFS into ENOENT, and the operator would look for a missing folder instead.
 */
async function makeFolder(dir: string): Promise<void> {
  try {
    await mkdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    if (code !== 'ENOENT') throw error;
    await mkdir(dir, { recursive: true });
  }
}
