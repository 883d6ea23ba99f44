/**
 * The PostgreSQL store when its server goes away and comes back, on a cluster of this file's
 * own (the shared one stays up): a restart with a transaction in hand, a server that turns
 * read-only (a demoted primary), every connection slot taken, a frozen server. Each costs
 * StoreErrors (which the webhook route answers 503, the worker retries and readiness reports)
 * while it lasts, never the process, and each clears by itself.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import {
  openPostgresStore,
  type PostgresStore,
} from '../../src/consumer/store/postgres/pg-store.ts';
import {
  CONNECT_TIMEOUT_MS,
  createPool,
  inTransaction,
} from '../../src/consumer/store/postgres/pool.ts';
import { isUnavailable } from '../../src/consumer/store/postgres/unavailable.ts';
import { StoreError } from '../../src/consumer/store/store.ts';
import {
  type Cluster,
  findPostgresBinaries,
  startPrivateCluster,
} from '../support/postgres-cluster.ts';
import { describeIfAvailable } from '../support/requirement.ts';
import { eventually } from '../support/sandbox.ts';
import { newEvent } from '../support/sqlite.ts';

const BIN = findPostgresBinaries();
/** Small, so that taking every slot is quick. */
const MAX_CONNECTIONS = 30;

let cluster: Cluster;
let store: PostgresStore | undefined;
const others: PostgresStore[] = [];

/** Runs `sql` on a connection of its own (the store's may be the ones under test). */
async function admin<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: cluster.url });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** The SQLSTATE of the error `error` wraps, however deep. */
function sqlState(error: unknown): string | undefined {
  for (let e = error; e != null; e = (e as { cause?: unknown }).cause) {
    if (e instanceof pg.DatabaseError) return e.code;
  }
  return undefined;
}

/** Resolves with what `promise` rejected with; fails if it resolved. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

const claim = (s: PostgresStore) =>
  s.events.claimDue({ now: Date.now(), limit: 5, leaseMs: 30_000, holder: 'test' });

/** The store answers again: readiness passes and an event can be stored. */
async function recovered(s: PostgresStore) {
  await eventually(
    () =>
      s.checkWritable().then(
        () => true,
        () => false,
      ),
    'the store to be writable again',
  );
  expect(await s.events.insert(newEvent({ eventId: `after-${Math.random()}` }))).toBe('inserted');
}

describeIfAvailable(
  'the PostgreSQL store when its server goes away',
  BIN === undefined ? 'no PostgreSQL server binaries (apt-get install postgresql)' : undefined,
  () => {
    beforeAll(async () => {
      cluster = await startPrivateCluster(BIN as string, {
        settings: { max_connections: String(MAX_CONNECTIONS) },
      });
    });
    afterAll(() => cluster?.stop());
    afterEach(async () => {
      for (const other of others.splice(0)) await other.close();
      await store?.close();
      store = undefined;
    });

    it('a restart with a transaction in hand fails that transaction, not the process', async () => {
      store = await openPostgresStore(cluster.url, { poolSize: 2 });
      // (An object: a promise resolved with a promise would wait for that one.)
      let entered!: (socket: { closed: Promise<unknown> }) => void;
      const inside = new Promise<{ closed: Promise<unknown> }>((resolve) => {
        entered = resolve;
      });
      let resume!: () => void;
      const gate = new Promise<void>((resolve) => {
        resume = resolve;
      });
      // Idle between two statements of its transaction when the server goes: the connection
      // is checked out, so the pool does not listen on it (issue 25: the process exited).
      const held = inTransaction(store.pool, async (client) => {
        await client.query('SELECT 1');
        entered({ closed: once(client.connection.stream, 'close') });
        await gate;
        await client.query('SELECT 2');
      });
      const socket = await inside;
      await cluster.stopServer();
      // The server's goodbye is read while no statement runs: that was the unhandled 'error'.
      await socket.closed;
      resume();
      const error = await failure(held);
      expect(sqlState(error)).toBe('57P01'); // terminating connection due to administrator command
      expect(isUnavailable(error)).toBe(true);

      // While it is away, every kind of call fails with the store's typed error.
      const away = store;
      for (const call of [
        () => away.checkWritable(),
        () => away.events.insert(newEvent()),
        () => claim(away),
        () => away.messages.get({ messageId: 'm', transfer: 'inbound' }),
        () => away.claims.holders(Date.now()),
      ]) {
        expect(await failure(call())).toBeInstanceOf(StoreError);
      }

      await cluster.startServer();
      await recovered(store);
      // The broken connection was dropped, not lent again.
      expect(store.pool.totalCount).toBeLessThanOrEqual(2);
      expect(await inTransaction(store.pool, (c) => c.query('SELECT 1'))).toBeDefined();
    });

    it('LISTEN and the migration lock come back after a restart', async () => {
      store = await openPostgresStore(cluster.url);
      const another = await openPostgresStore(cluster.url);
      others.push(another);
      let woken = 0;
      store.onNewEvents?.(() => {
        woken += 1;
      });
      await eventually(async () => woken > 0, 'the first LISTEN');
      woken = 0;
      await cluster.stopServer();
      await cluster.startServer();
      // A new LISTEN connection wakes its worker once (what arrived meanwhile), then hears
      // the other store's inserts.
      await eventually(async () => woken > 0, 'LISTEN to reconnect', 15_000);
      await recovered(another);
      woken = 0;
      await another.events.insert(newEvent({ eventId: `notify-${Math.random()}` }));
      await eventually(async () => woken > 0, 'a notification after the restart');
      // The session lock of migrate.ts went with its session: a new process opens at once.
      others.push(await openPostgresStore(cluster.url));
    });

    it('a server that turns read-only (a demoted primary): StoreErrors, then back', async () => {
      const s = await openPostgresStore(cluster.url);
      store = s;
      try {
        await admin('ALTER SYSTEM SET default_transaction_read_only = on');
        await admin('SELECT pg_reload_conf()');
        const refused = await eventually(
          () =>
            s.checkWritable().then(
              () => undefined,
              (error: unknown) => error,
            ),
          'readiness to fail',
        );
        expect(refused).toBeInstanceOf(StoreError);
        expect(sqlState(refused)).toBe('25006'); // read_only_sql_transaction
        for (const call of [() => s.events.insert(newEvent()), () => claim(s)]) {
          const error = await failure(call());
          expect(error).toBeInstanceOf(StoreError);
          expect(sqlState(error)).toBe('25006');
        }
      } finally {
        await admin('ALTER SYSTEM RESET default_transaction_read_only');
        await admin('SELECT pg_reload_conf()');
      }
      await recovered(s);
    });

    it('every connection slot taken (max_connections, 53300): StoreErrors, then back', async () => {
      const s = await openPostgresStore(cluster.url);
      store = s;
      await s.checkWritable();
      const taken: pg.Client[] = [];
      try {
        // The store's own connections go first, as after a failover; then every slot is taken.
        await admin(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = $$client backend$$',
        );
        await eventually(async () => s.pool.totalCount === 0, 'the pool to drop its connections');
        let full: unknown;
        while (full === undefined) {
          const client = new pg.Client({ connectionString: cluster.url });
          client.on('error', () => {});
          full = await client.connect().then(
            () => void taken.push(client),
            (error: unknown) => error,
          );
        }
        expect(sqlState(full)).toBe('53300');
        for (const call of [
          () => s.checkWritable(),
          () => s.events.insert(newEvent()),
          () => claim(s),
        ]) {
          const error = await failure(call());
          expect(error).toBeInstanceOf(StoreError);
          expect(sqlState(error)).toBe('53300'); // too_many_connections
        }
      } finally {
        await Promise.all(taken.map((client) => client.end()));
      }
      await recovered(s);
    });

    it('a frozen server (SIGSTOP): readiness fails within its deadline, connections give up, SIGCONT heals', async () => {
      store = await openPostgresStore(cluster.url);
      const pids = cluster.serverPids();
      const signal = (name: string) => spawnSync('kill', [`-${name}`, ...pids.map(String)]);
      signal('STOP');
      try {
        const started = performance.now();
        const readiness = failure(store.checkWritable());
        // A connection to a frozen server is accepted by the kernel and never answered.
        const fresh = createPool(cluster.url, 1);
        const connecting = failure(fresh.query('SELECT 1')).finally(() => fresh.end());
        expect(await readiness).toBeInstanceOf(StoreError);
        expect(performance.now() - started).toBeLessThan(3_000);
        const gaveUp = await connecting;
        expect(isUnavailable(gaveUp)).toBe(true);
        expect(performance.now() - started).toBeLessThan(CONNECT_TIMEOUT_MS + 2_000);
      } finally {
        signal('CONT');
      }
      await recovered(store);
    });
  },
);
