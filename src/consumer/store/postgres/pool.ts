/**
 * The connections of the PostgreSQL store: the settings every connection is opened with, the
 * pool, and its one transaction helper.
 *
 * An outage must cost answers for as long as it lasts, never a process or a hung request. So:
 * a connection attempt gives up after CONNECT_TIMEOUT_MS (a stopped or unreachable server
 * accepts TCP and never answers), TCP keepalive notices a peer that is gone while a
 * connection idles, and a query unanswered after QUERY_TIMEOUT_MS fails and its connection is
 * dropped (a connection whose server vanished without a reset would otherwise wait for the
 * kernel to give up, a quarter of an hour).
 */
import pg from 'pg';
import { connectionStillUsable } from './unavailable.ts';

/** How long opening a connection (or waiting for a free one of the pool) may take. */
export const CONNECT_TIMEOUT_MS = 5_000;
/** Idle time before TCP keepalive probes start (then one a second, ten unanswered: gone). */
const KEEPALIVE_IDLE_MS = 10_000;
/**
 * A query of the running store (a statement or a step of a short transaction) takes
 * milliseconds; this bounds one the server will never answer. Migrations, which may build an
 * index on a large table, run without it (migrate.ts).
 */
export const QUERY_TIMEOUT_MS = 30_000;

// bigint columns hold milliseconds since the epoch: exact as JavaScript numbers (node-postgres
// would return strings, to be safe with larger values this schema never holds).
const BIGINT = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === BIGINT
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * What every connection of the store is opened with. TLS comes from the URL itself
 * (`sslmode`, `sslrootcert`: docs/operating.md#postgresql-outages).
 */
export function clientConfig(connectionString: string): pg.ClientConfig {
  return {
    connectionString,
    types,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
  };
}

export function createPool(connectionString: string, max: number): pg.Pool {
  const pool = new pg.Pool({
    ...clientConfig(connectionString),
    max,
    query_timeout: QUERY_TIMEOUT_MS,
  });
  // An idle connection dropped by the server (a restart, a failover) must not crash the
  // process: the pool discards it and opens a new one when next needed.
  pool.on('error', () => {});
  return pool;
}

/**
 * Runs `work` in a transaction on one connection: COMMIT if it resolves, ROLLBACK if not.
 *
 * The pool listens for errors on idle connections only. One checked out here, that the server
 * drops between two statements (a restart while `work` computes), would emit an 'error' no one
 * listens to, which ends the process; so this listens for the whole checkout, and the failure
 * reaches `work` as the rejection of its next query. A connection that failed is released as
 * broken, so the pool closes it instead of lending it again.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken ??= error;
  };
  client.on('error', onError);
  const release = (failure: Error | undefined) => {
    client.removeListener('error', onError);
    client.release(failure);
  };
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    release(broken);
    return result;
  } catch (error) {
    release(broken ?? (await rollback(client, error)));
    // A dropped connection fails the next query with "not queryable"; the server's reason
    // (terminating connection due to administrator command, 57P01) says more.
    throw broken ?? error;
  }
}

/** Rolls back after `error`; returns why the connection must be dropped, if it must. */
async function rollback(client: pg.PoolClient, error: unknown): Promise<Error | undefined> {
  if (!connectionStillUsable(error)) {
    return error instanceof Error ? error : new Error(String(error));
  }
  try {
    await client.query('ROLLBACK');
    return undefined;
  } catch (failure) {
    return failure instanceof Error ? failure : new Error(String(failure));
  }
}
