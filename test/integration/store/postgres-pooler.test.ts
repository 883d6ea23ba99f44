/**
 * PgBouncer in front of PostgreSQL, as docs/scaling-out.md#poolers describes it: in session
 * mode the store works as on PostgreSQL itself (LISTEN included); in transaction mode, which
 * would lose LISTEN's notifications and the migration's session lock, the store refuses to
 * start and says to use session mode. Each mode is a pgbouncer process of this file, in front
 * of the tests' server.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPostgresStore } from '../../../src/consumer/store/postgres/pg-store.ts';
import { TransactionPoolingError } from '../../../src/consumer/store/postgres/pooler-check.ts';
import {
  createTestDatabase,
  POSTGRES_MISSING,
  POSTGRES_URL,
  type TestDatabase,
} from '../../support/postgres.ts';
import { AS_ROOT } from '../../support/postgres-cluster.ts';
import { freePort } from '../../support/processes.ts';
import { describeIfAvailable } from '../../support/requirement.ts';
import { eventually } from '../../support/sandbox.ts';
import { newEvent } from '../../support/sqlite.ts';

/** Debian's package puts it in /usr/sbin, which a non-root PATH may lack. */
const PGBOUNCER = ['pgbouncer', '/usr/sbin/pgbouncer'].find(
  (command) => spawnSync(command, ['--version']).status === 0,
);

type Mode = 'session' | 'transaction';
let dir: string;
let database: TestDatabase;
const bouncers = new Map<Mode, { child: ChildProcess; port: number }>();

/** Starts pgbouncer in `mode` in front of the test database's server; resolves once it listens. */
async function startBouncer(mode: Mode) {
  const server = new URL(POSTGRES_URL);
  const port = await freePort();
  const password = server.password === '' ? '' : ` password=${decodeURIComponent(server.password)}`;
  const config = join(dir, `${mode}.ini`);
  writeFileSync(
    config,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432} user=${decodeURIComponent(server.username) || 'postgres'}${password}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      `pool_mode = ${mode}`,
      `logfile = ${join(dir, `${mode}.log`)}`,
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root.
  const [command, args] = AS_ROOT
    ? ['runuser', ['-u', 'postgres', '--', PGBOUNCER as string, config]]
    : [PGBOUNCER as string, [config]];
  const child = spawn(command, args, { stdio: 'ignore' });
  bouncers.set(mode, { child, port });
  await eventually(
    () =>
      new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      }),
    `pgbouncer (${mode}) to listen`,
  );
}

const through = (mode: Mode) => {
  const url = new URL(database.url);
  url.host = `127.0.0.1:${bouncers.get(mode)?.port}`;
  return url.toString();
};

describeIfAvailable(
  'PgBouncer in front of PostgreSQL',
  POSTGRES_URL === ''
    ? POSTGRES_MISSING
    : PGBOUNCER === undefined
      ? 'no pgbouncer (apt-get install pgbouncer)'
      : undefined,
  () => {
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'pgbouncer-'));
      if (AS_ROOT) spawnSync('chmod', ['777', dir]);
      database = await createTestDatabase();
      await Promise.all([startBouncer('session'), startBouncer('transaction')]);
    });
    afterAll(async () => {
      for (const { child } of bouncers.values()) {
        // runuser passes SIGTERM on to pgbouncer, which then exits.
        if (child.exitCode === null) {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGTERM');
          await exited;
        }
      }
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('in session mode the store works, LISTEN included', async () => {
      const store = await openPostgresStore(through('session'));
      try {
        let woken = 0;
        store.onNewEvents?.(() => {
          woken += 1;
        });
        await eventually(async () => woken > 0, 'LISTEN through the pooler');
        woken = 0;
        expect(await store.events.insert(newEvent())).toBe('inserted');
        await eventually(async () => woken > 0, 'a notification through the pooler');
      } finally {
        await store.close();
      }
    });

    it('in transaction mode the store refuses to start, and says to use session mode', async () => {
      const error = await openPostgresStore(through('transaction')).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(TransactionPoolingError);
      expect((error as Error).message).toMatch(
        /transaction or statement mode.*pool_mode = session/,
      );
    });
  },
);
