/**
 * File I/O by descriptor (node:fs's callback calls, as promises), for the hot paths that write
 * files: the document spool and the file importer. The promise API's FileHandle objects cost
 * several times more work on the event loop for the same system calls.
 */
import { close, fsync, open, write, writeSync } from 'node:fs';

export function openFd(path: string, flags: string): Promise<number> {
  return new Promise((resolve, reject) =>
    open(path, flags, (error, fd) => (error ? reject(error) : resolve(fd))),
  );
}

export function closeFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) =>
    close(fd, (error) => (error ? reject(error) : resolve())),
  );
}

export function fsyncFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) =>
    fsync(fd, (error) => (error ? reject(error) : resolve())),
  );
}

/** Writes all of `data` at the descriptor's position (a write may take only part of it). */
export async function writeAll(fd: number, data: Buffer): Promise<void> {
  for (let offset = 0; offset < data.length; ) {
    offset += await new Promise<number>((resolve, reject) =>
      write(fd, data, offset, data.length - offset, null, (error, written) =>
        error ? reject(error) : resolve(written),
      ),
    );
  }
}

/** writeAll made at once, on the calling thread: for a few KiB into the page cache. */
export function writeAllSync(fd: number, data: Buffer): void {
  for (let offset = 0; offset < data.length; ) {
    offset += writeSync(fd, data, offset, data.length - offset, null);
  }
}
