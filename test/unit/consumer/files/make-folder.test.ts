/**
 * makeFolder: `mkdir -p` that tells the file system's own refusal. (A read-only disk, EROFS,
 * which Node's recursive mkdir tells as ENOENT, needs a mount of its own: the read-only case of
 * test/reliability/local-faults.test.ts.)
 */
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeFolder, makeFolderSync } from '../../../../src/consumer/files/make-folder.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'make-folder-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.each([
  ['makeFolder', makeFolder],
  ['makeFolderSync', async (path: string) => makeFolderSync(path)],
])('%s', (_name, make) => {
  it('makes every missing folder of the path, and accepts one that exists', async () => {
    const deep = join(dir, 'a', 'b', 'c');

    await make(deep);
    await make(deep);

    expect(statSync(deep).isDirectory()).toBe(true);
  });

  it('makes the same folders from many callers at once', async () => {
    const deep = join(dir, 'x', 'y', 'z');

    await Promise.all(Array.from({ length: 8 }, () => make(deep)));

    expect(existsSync(deep)).toBe(true);
  });

  it('throws the refusal of the folder that could not be made, as it came', async () => {
    writeFileSync(join(dir, 'file'), 'not a folder');

    await expect(make(join(dir, 'file', 'inside', 'deeper'))).rejects.toMatchObject({
      code: 'ENOTDIR',
    });
  });
});
