/** The connection pool of the PostgreSQL store, and its one transaction helper. */
import pg from 'pg';

// bigint columns hold milliseconds since the epoch: exact as JavaScript numbers (node-postgres
// would return strings, to be safe with larger values this schema never holds).
const BIGINT = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === BIGINT
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export function createPool(connectionString: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, types });
  // An idle connection dropped by the server (a restart, a failover) must not crash the
  // process: the pool discards it and opens a new one when next needed.
  pool.on('error', () => {});
  return pool;
}

/** Runs `work` in a transaction on one connection: COMMIT if it resolves, ROLLBACK if not. */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    try {
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  } finally {
    client.release();
  }
}
