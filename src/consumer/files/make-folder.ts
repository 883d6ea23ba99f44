/**
 * `mkdir -p` that reports the file system's own error. Node's recursive mkdir answers ENOENT
 * for a folder it cannot make on a read-only file system (EROFS), and the worker then sees no
 * local fault and the operator looks for a missing folder instead (errors.ts, localFault).
 * So each missing folder is made on its own, the nearest existing one's child first, and the
 * first refusal is thrown as it came.
 */
import { mkdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

export async function makeFolder(dir: string): Promise<void> {
  try {
    await mkdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    const parent = dirname(dir);
    if (code !== 'ENOENT' || parent === dir) throw error;
    await makeFolder(parent);
    await mkdir(dir).catch((again: NodeJS.ErrnoException) => {
      if (again.code !== 'EEXIST') throw again;
    });
  }
}

/**
 * makeFolder at once, for callers that cannot wait: the SQLite file's folder at open, a spool
 * file asked for by `path`.
 */
export function makeFolderSync(dir: string): void {
  try {
    mkdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    const parent = dirname(dir);
    if (code !== 'ENOENT' || parent === dir) throw error;
    makeFolderSync(parent);
    try {
      mkdirSync(dir);
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code !== 'EEXIST') throw again;
    }
  }
}
