/**
 * A private PostgreSQL cluster in a temporary folder (initdb, then pg_ctl on a free port and a
 * socket folder of its own): no service of the machine is touched. As root it runs as the
 * `postgres` OS user, which PostgreSQL requires. Used by the tests' global setup, by
 * `npm run bench`, and by the tests that stop, freeze or reconfigure their server (a cluster
 * of their own, so the shared one stays up).
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.ts';

export interface Cluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres (`host` of ClusterOptions if given) */
  url: string;
  port: number;
  /** The temporary folder: the data folder, the server log and the socket are in it. */
  dir: string;
  /** Stops the server and removes its folder. Safe to call twice, and after stopServer(). */
  stop(): void;
  /**
   * Stops the server as an operator's restart does (`pg_ctl stop -m fast`), keeping its data;
   * resolves once it is down. The caller's event loop runs meanwhile.
   */
  stopServer(): Promise<void>;
  /** Starts it again, with the same settings, on the same port; resolves once it accepts. */
  startServer(): Promise<void>;
  /** The postmaster's process id and those of its children (backends, background workers). */
  serverPids(): number[];
}

export interface ClusterOptions {
  /** Extra server settings, passed as `-c name=value`. */
  settings?: Record<string, string>;
  /** The host name the URL names. @default 127.0.0.1 */
  host?: string;
}

/** The folder of initdb and pg_ctl, on PATH or in Debian's layout; undefined if none. */
export function findPostgresBinaries(): string | undefined {
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

/** Whether this process runs as root, where PostgreSQL must run as another user. */
export const AS_ROOT = userInfo().uid === 0;

export async function startPrivateCluster(
  bin: string,
  options: ClusterOptions = {},
): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'private-postgres-'));
  const asPostgres = (command: string, args: string[]): [string, string[]] =>
    AS_ROOT
      ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]]
      : [join(bin, command), args];
  const run = (command: string, args: string[]) =>
    execFileSync(...asPostgres(command, args), { stdio: 'pipe' });
  const runAsync = (command: string, args: string[]) =>
    promisify(execFile)(...asPostgres(command, args));
  if (AS_ROOT) chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const settings = { max_connections: '300', ...options.settings };
  const serverOptions = [
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
    ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`),
  ].join(' ');
  const startArgs = ['-D', data, '-l', join(dir, 'server.log'), '-w', '-o', serverOptions, 'start'];
  const stopArgs = ['-D', data, '-m', 'fast', '-w', 'stop'];
  run('pg_ctl', startArgs);
  let running = true;
  return {
    url: `postgres://postgres@${options.host ?? '127.0.0.1'}:${port}/postgres`,
    port,
    dir,
    stop() {
      try {
        if (running) run('pg_ctl', stopArgs);
        running = false;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    async stopServer() {
      await runAsync('pg_ctl', stopArgs);
      running = false;
    },
    async startServer() {
      await runAsync('pg_ctl', startArgs);
      running = true;
    },
    serverPids() {
      const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      const children = spawnSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter((line) => line !== '')
        .map(Number);
      return [postmaster, ...children];
    },
  };
}
