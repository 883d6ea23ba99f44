/**
 * TLS to PostgreSQL as docs/operating.md#postgresql-tls sets it: `sslmode=verify-full` and the
 * CA's certificate in `sslrootcert`, in DATABASE_URL. A private cluster with ssl=on serves a
 * certificate for `localhost` signed by a CA this file makes with openssl. With the CA the
 * store works over TLS (pool and LISTEN); without it, or by a name the certificate does not
 * hold, the consumer does not start and says what to change.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPostgresStore } from '../../../src/consumer/store/postgres/pg-store.ts';
import { DatabaseTlsError } from '../../../src/consumer/store/postgres/tls-failure.ts';
import {
  AS_ROOT,
  type Cluster,
  findPostgresBinaries,
  startPrivateCluster,
} from '../../support/postgres-cluster.ts';
import { freePort, runScript } from '../../support/processes.ts';
import { describeIfAvailable } from '../../support/requirement.ts';
import { eventually } from '../../support/sandbox.ts';
import { newEvent } from '../../support/sqlite.ts';

const BIN = findPostgresBinaries();
const OPENSSL = spawnSync('openssl', ['version']).status === 0;
const MAIN = join(import.meta.dirname, '../../../src/main.ts');

let dir: string;
let cluster: Cluster;
let ca: string;

/** A CA, and a server certificate for `localhost` (and nothing else) that it signed. */
function makeCertificates(folder: string) {
  const file = (name: string) => join(folder, name);
  const openssl = (args: string) =>
    execFileSync(
      'openssl',
      args.split(' ').map((arg) => arg.replace(/^@/, `${folder}/`)),
      {
        stdio: 'pipe',
      },
    );
  openssl(
    'req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=test-ca -keyout @ca.key -out @ca.pem',
  );
  openssl('req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout @server.key -out @server.csr');
  writeFileSync(file('server.ext'), 'subjectAltName=DNS:localhost\n');
  openssl(
    'x509 -req -in @server.csr -CA @ca.pem -CAkey @ca.key -CAcreateserial -days 2 -extfile @server.ext -out @server.pem',
  );
  // PostgreSQL reads its key only if no one else may, and runs as `postgres` under root.
  chmodSync(file('server.key'), 0o600);
  if (AS_ROOT) {
    const id = (flag: string) =>
      Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    for (const name of ['server.key', 'server.pem']) chownSync(file(name), id('-u'), id('-g'));
  }
  return { ca: file('ca.pem'), cert: file('server.pem'), key: file('server.key') };
}

const url = (params: string, host = 'localhost') =>
  `postgres://postgres@${host}:${cluster.port}/postgres?${params}`;

describeIfAvailable(
  'TLS to PostgreSQL (sslmode and sslrootcert in DATABASE_URL)',
  BIN === undefined
    ? 'no PostgreSQL server binaries (apt-get install postgresql)'
    : OPENSSL
      ? undefined
      : 'no openssl',
  () => {
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'postgres-tls-'));
      chmodSync(dir, 0o755);
      const files = makeCertificates(dir);
      ca = files.ca;
      cluster = await startPrivateCluster(BIN as string, {
        host: 'localhost',
        settings: { ssl: 'on', ssl_cert_file: files.cert, ssl_key_file: files.key },
      });
    });
    afterAll(() => {
      cluster?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('verify-full with the CA: the pool and LISTEN work over TLS', async () => {
      const store = await openPostgresStore(url(`sslmode=verify-full&sslrootcert=${ca}`));
      try {
        const { rows } = await store.pool.query<{ ssl: boolean; version: string }>(
          'SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()',
        );
        expect(rows[0]?.ssl).toBe(true);
        let woken = 0;
        store.onNewEvents?.(() => {
          woken += 1;
        });
        await eventually(async () => woken > 0, 'LISTEN over TLS');
        woken = 0;
        await store.events.insert(newEvent());
        await eventually(async () => woken > 0, 'a notification over TLS');
        const listening = await store.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)
            WHERE a.query LIKE 'LISTEN%' AND s.ssl`,
        );
        expect(listening.rows[0]?.n).toBe(1);
      } finally {
        await store.close();
      }
    });

    it('verify-full without the CA: refused, saying to name the CA in sslrootcert', async () => {
      const error = await openPostgresStore(url('sslmode=verify-full')).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(DatabaseTlsError);
      expect((error as Error).message).toMatch(
        /could not be verified: unable to verify the first certificate.*sslrootcert=/,
      );
    });

    it('a host name the certificate does not hold: refused, saying so', async () => {
      const error = await openPostgresStore(
        url(`sslmode=verify-full&sslrootcert=${ca}`, '127.0.0.1'),
      ).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(DatabaseTlsError);
      expect((error as Error).message).toMatch(/does not name the host DATABASE_URL connects to/);
    });

    it('the consumer started without the CA exits with that message', async () => {
      const run = await runScript(MAIN, {
        cwd: dir,
        env: {
          PORT: String(await freePort()),
          WEBHOOK_SECRETS: 'whsec_tls_test_secret',
          API_BASE_URL: 'http://127.0.0.1:9',
          API_TOKEN: 'test-token',
          DATABASE_URL: url('sslmode=verify-full'),
          DOCUMENTS_DIR: join(dir, 'documents'),
        },
      });
      expect(run.code).toBe(1);
      expect(run.output).toContain("PostgreSQL's TLS certificate could not be verified");
    });
  },
);
