/**
 * The scratch folders of one bench run (databases, documents trees, journals), removed together
 * when the run ends (run.ts) rather than by each part as it finishes, so that no part measures
 * the previous one's teardown.
 *
 * Why it matters here: this machine's root is ext4 without a journal, and there ext4, looking for
 * a free inode, skips every one deleted in the last 5 s, or in the last 5 minutes while its
 * inode table block is still dirty (`recently_deleted()` in fs/ext4/ialloc.c). Removing the
 * ingress part's documents (about 180,000 files of scenario (d)'s imports) or the drain's
 * (25,000) right before the next part made every file that part created search past them:
 * perf showed `recently_deleted` and `find_get_block_common` under `ext4_create` at a fifth of
 * all CPU, and the reconciliation of 10,000 messages took 24.0 s (3.41 ms of CPU a message)
 * straight after the drain's removal against 19.3 s (2.44 ms) alone. A volume with a journal does
 * not pay this (docs/performance.md#inodes).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const folders: string[] = [];

/** A new folder under the system's temporary folder, removed by removeScratchFolders(). */
export async function scratchFolder(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  folders.push(dir);
  return dir;
}

/** Removes every folder scratchFolder() made in this process. */
export async function removeScratchFolders(): Promise<void> {
  for (const dir of folders.splice(0)) await rm(dir, { recursive: true, force: true });
}
