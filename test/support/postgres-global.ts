/**
 * Vitest global setup: a real PostgreSQL for the tests that need one, once per run.
 *
 * - TEST_DATABASE_URL set: that server is used (tests create and drop databases of their own
 *   on it).
 * - Otherwise a private cluster in a temporary folder (initdb, then pg_ctl on a free port and
 *   a socket folder of its own): no service of the machine is touched. As root it runs as the
 *   `postgres` OS user, which PostgreSQL requires.
 * - Neither possible: the PostgreSQL tests are skipped with the reason, except in CI (CI=true),
 *   where a missing server is a failure.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Base URL of the test server (its `postgres` database), or '' when there is none. */
    postgresUrl: string;
    /** Why there is none. */
    postgresMissing: string;
  }
}

function findBinaries(): string | undefined {
  const fromPath = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  if (fromPath !== '') return fromPath.replace(/\/initdb$/, '');
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = join(root, version, 'bin');
    if (existsSync(join(bin, 'initdb'))) return bin;
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export default async function setup(project: TestProject) {
  const given = process.env.TEST_DATABASE_URL;
  if (given !== undefined && given !== '') {
    project.provide('postgresUrl', given);
    project.provide('postgresMissing', '');
    return;
  }
  const bin = findBinaries();
  if (bin === undefined) {
    const reason =
      'no PostgreSQL: install it (apt-get install postgresql) or set TEST_DATABASE_URL';
    if (process.env.CI === 'true') throw new Error(`CI: ${reason}`);
    project.provide('postgresUrl', '');
    project.provide('postgresMissing', reason);
    return;
  }

  const dir = mkdtempSync(join(tmpdir(), 'test-postgres-'));
  const asRoot = userInfo().uid === 0;
  // PostgreSQL refuses to run as root: the cluster belongs to the postgres OS user then.
  const run = (command: string, args: string[]) =>
    asRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', join(bin, command), ...args], {
          stdio: 'pipe',
        })
      : execFileSync(join(bin, command), args, { stdio: 'pipe' });
  if (asRoot) {
    chmodSync(dir, 0o777);
  }
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  run('pg_ctl', [
    '-D',
    data,
    '-l',
    join(dir, 'server.log'),
    '-w',
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=300`,
    'start',
  ]);
  project.provide('postgresUrl', `postgres://postgres@127.0.0.1:${port}/postgres`);
  project.provide('postgresMissing', '');
  return () => {
    try {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}
