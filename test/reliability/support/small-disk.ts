/**
 * A small file system of its own (a tmpfs mount) that a test can fill up or make read-only,
 * for the faults of a real disk: ENOSPC and EROFS, from the kernel, not from a mock. Mounting
 * needs root (the CI machines run tests as root); elsewhere the suites that need it are
 * skipped with the reason, except in CI, where they must run.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { describeIfAvailable } from '../../support/requirement.ts';

function mountMissing(): string | undefined {
  if (process.getuid?.() !== 0) return 'mounting a small tmpfs needs root';
  return undefined;
}

const MISSING = mountMissing();

/** `describe` where this user can mount; see describeIfAvailable otherwise. */
export function describeWithSmallDisk(name: string, body: () => void) {
  describeIfAvailable(name, MISSING, body);
}

export interface SmallDisk {
  path: string;
  /** Writes a filler file until the file system has no byte left. */
  fill(): void;
  /** Removes the filler: the space is back. */
  free(): void;
  /** Remounts read-only (`true`) or read-write. */
  readOnly(on: boolean): void;
  /** Unmounts it and removes the temporary folder it was mounted in. */
  unmount(): void;
}

/** Mounts a tmpfs of `bytes` in a temporary folder of its own. */
export function mountSmallDisk(bytes: number): SmallDisk {
  const parent = mkdtempSync(join(tmpdir(), 'small-disk-'));
  const path = join(parent, 'disk');
  mkdirSync(path);
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0755`, 'tmpfs', path]);
  const filler = join(path, '.filler');
  return {
    path,
    fill() {
      const fd = openSync(filler, 'a');
      const block = Buffer.alloc(64 * 1024);
      try {
        for (;;) writeSync(fd, block);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
      // The last partial block: byte by byte until not even one fits.
      try {
        for (;;) writeSync(fd, block, 0, 1);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    readOnly(on) {
      execFileSync('mount', ['-o', `remount,${on ? 'ro' : 'rw'}`, path]);
    },
    unmount() {
      execFileSync('umount', ['--lazy', path]);
      rmSync(parent, { recursive: true, force: true });
    },
  };
}

/**
 * mountSmallDisk() for the running test, unmounted once it has finished: after what the test
 * started later on it (a sandbox started after it is stopped first).
 */
export function mountSmallDiskForTest(bytes: number): SmallDisk {
  const disk = mountSmallDisk(bytes);
  onTestFinished(() => disk.unmount());
  return disk;
}
