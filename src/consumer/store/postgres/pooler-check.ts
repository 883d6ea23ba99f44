/**
 * The store needs a server session per connection: LISTEN (inbox-listener.ts) hears only on the
 * session that listens, and the migration lock (migrate.ts) is a session advisory lock. A
 * pooler in transaction or statement mode (PgBouncer's `pool_mode = transaction`, the default
 * of several managed poolers) lends a server session per transaction instead: notifications
 * are lost, and a session lock is taken on one server session and released on another, or
 * never, which leaves the next start waiting for good. Session mode is fine.
 *
 * The check: two connections ask in turn which server process serves them. Directly on
 * PostgreSQL, or through a pooler in session mode, each connection keeps its own; a pooler in
 * transaction mode hands the one server process that just went idle to the next query, so both
 * connections see the same. It cannot be fooled into refusing a session (a server process is
 * never shared while its session lasts); it can miss a transaction-mode pooler that happens to
 * serve the two connections from different server processes, so the documentation says session
 * mode is required (docs/scaling-out.md#poolers).
 */
import pg from 'pg';
import { clientConfig } from './pool.ts';

/** Thrown at start when DATABASE_URL leads to a pooler that shares server sessions. */
export class TransactionPoolingError extends Error {
  override readonly name = 'TransactionPoolingError';
}

const ROUNDS = 3;

export async function refuseTransactionPooling(connectionString: string): Promise<void> {
  const clients = [
    new pg.Client(clientConfig(connectionString)),
    new pg.Client(clientConfig(connectionString)),
  ] as const;
  for (const client of clients) client.on('error', () => {});
  try {
    await Promise.all(clients.map((client) => client.connect()));
    const served = async (client: pg.Client) =>
      (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
    const [a, b] = clients;
    const first = await served(a);
    for (let round = 0; round < ROUNDS; round++) {
      const other = await served(b);
      const again = await served(a);
      if (other === first || again !== first) {
        throw new TransactionPoolingError(
          'DATABASE_URL leads to a connection pooler in transaction or statement mode (two ' +
            'connections were served by one PostgreSQL session): the consumer needs a session ' +
            'per connection, for LISTEN and its advisory locks. Point DATABASE_URL at ' +
            'PostgreSQL itself, or at a pool in session mode (PgBouncer: pool_mode = session); ' +
            'see docs/scaling-out.md#poolers',
        );
      }
    }
  } finally {
    await Promise.all(clients.map((client) => client.end().catch(() => {})));
  }
}
