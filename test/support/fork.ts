/**
 * A fork of this repository, as a forker has it after cloning: its tracked files, in a folder of
 * their own, with this checkout's installed node_modules linked in (a fork runs `npm ci`; the
 * packages are the same). For the tests that follow docs/forking.md.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const REPOSITORY_ROOT = join(import.meta.dirname, '../..');

export function forkOfThisRepository(): string {
  const fork = mkdtempSync(join(tmpdir(), 'fork-'));
  const files = execFileSync('git', ['ls-files', '-z'], {
    cwd: REPOSITORY_ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file !== '');
  for (const file of files) {
    // A file deleted in this checkout but not yet committed is not part of what is tested.
    if (!existsSync(join(REPOSITORY_ROOT, file))) continue;
    mkdirSync(dirname(join(fork, file)), { recursive: true });
    cpSync(join(REPOSITORY_ROOT, file), join(fork, file));
  }
  symlinkSync(join(REPOSITORY_ROOT, 'node_modules'), join(fork, 'node_modules'));
  return fork;
}

/** The `sh` block that follows `marker` in a markdown text. */
export function blockAfter(markdown: string, marker: string): string {
  const at = markdown.indexOf(marker);
  const match = at === -1 ? null : /```sh\n([\s\S]*?)```/.exec(markdown.slice(at));
  if (match?.[1] === undefined) throw new Error(`no sh block after ${marker}`);
  return match[1];
}
