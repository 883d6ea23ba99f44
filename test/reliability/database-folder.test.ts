/**
 * The SQLite database's folder on a disk that cannot take it: the store says why in the
 * file system's own words. Node's recursive mkdir tells a read-only disk as ENOENT ("no such
 * file or directory"), which sent an operator looking for a missing folder.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openStore } from '../../src/consumer/store/open-store.ts';
import { describeWithSmallDisk, mountSmallDiskForTest } from './support/small-disk.ts';

describeWithSmallDisk('the database folder on a read-only disk', () => {
  it('is refused with EROFS, naming the folder', async () => {
    const disk = mountSmallDiskForTest(1024 * 1024);
    disk.readOnly(true);
    const folder = join(disk.path, 'state', 'db');

    await expect(openStore(`sqlite:${join(folder, 'consumer.db')}`)).rejects.toMatchObject({
      code: 'EROFS',
      message: expect.stringContaining(join(disk.path, 'state')),
    });
  });
});
