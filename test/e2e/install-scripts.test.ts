/**
 * `npm ci` on a fresh clone prints no alarm (issue 37): npm 11 lists the dependencies whose
 * install scripts package.json's `allowScripts` does not cover ("packages have install scripts
 * not yet covered by allowScripts"). Each one the lock holds is reviewed there, and none needs
 * its script (docs/contributing.md#install-scripts): better-sqlite3's would build it against
 * whatever Node headers node-gyp finds (the system's Node 20 in CI), over the binary it ships
 * for Node 24. Denied by name, each stays skipped; a dependency that brings a new install
 * script is still listed by npm, and fails the first test here.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { userShellEnv } from '../support/child-env.ts';

const ROOT = join(import.meta.dirname, '../..');
const run = promisify(execFile);

const readJson = (file: string) => JSON.parse(readFileSync(join(ROOT, file), 'utf8'));

describe('install scripts', () => {
  it('allowScripts names each package of the lock that has one, and allows none of them', () => {
    const lock = readJson('package-lock.json') as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript === true)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
      .sort();
    const policy = (readJson('package.json') as { allowScripts?: Record<string, boolean> })
      .allowScripts;
    expect(Object.keys(policy ?? {}).sort()).toEqual(withScripts);
    expect(withScripts).toContain('better-sqlite3');
    expect(Object.values(policy ?? {}).every((allowed) => allowed === false)).toBe(true);
  });

  it('npm ci prints no install-scripts warning (--dry-run, in a copy of the manifests)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'npm-ci-'));
    try {
      const manifests = ['package.json', 'package-lock.json', 'tools/openapi-client/package.json'];
      for (const file of manifests) {
        mkdirSync(dirname(join(dir, file)), { recursive: true });
        cpSync(join(ROOT, file), join(dir, file));
      }
      const { stdout, stderr } = await run(
        'npm',
        ['ci', '--dry-run', '--no-audit', '--no-fund', '--loglevel=warn'],
        { cwd: dir, env: userShellEnv(dir), maxBuffer: 16 * 1024 * 1024 },
      );
      const output = `${stdout}${stderr}`;
      expect(output).toMatch(/added \d+ packages/);
      expect(output).not.toContain('install-scripts');
      expect(output).not.toContain('not yet covered by allowScripts');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
