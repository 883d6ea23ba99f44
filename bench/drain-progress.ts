/**
 * What the backlog drain watches in the consumer's database while the consumers run, read
 * beside them (SQLite read-only, beside its WAL; PostgreSQL on a connection of its own): the
 * inbox events still due, and the status notices the sink has not delivered yet. Both counts
 * walk an index range as small as the backlog (events_due by state; sink_outbox_pending, a
 * partial index of the undelivered), so polling them every 50 ms costs the consumers next to
 * nothing. Afterwards: the events that went dead
 * during the drain and the notices queued during it, with whether each was delivered.
 */
import Database from 'better-sqlite3';
import pg from 'pg';

export interface DrainProgress {
  /** Inbox events pending or in hand. */
  due(): Promise<number>;
  /** Status notices not yet delivered to the sink, whenever they were queued. */
  noticesPending(): Promise<number>;
  /**
   * Once the consumers are done: the events that went dead since this reader was opened (a
   * store holding history has dead events of its own), and the notices queued at or after
   * `since`.
   */
  outcome(since: number): Promise<DrainOutcome>;
  close(): Promise<void>;
}

export interface DrainOutcome {
  deadEvents: number;
  /** Ids of the notices queued at or after `since`, and which of them were delivered. */
  notices: { id: string; delivered: boolean }[];
}

const SQL = {
  due: "SELECT COUNT(*) AS n FROM events WHERE state IN ('pending', 'processing')",
  pending: 'SELECT COUNT(*) AS n FROM sink_outbox WHERE delivered_at IS NULL',
  dead: "SELECT COUNT(*) AS n FROM events WHERE state = 'dead'",
  notices:
    'SELECT notice_id AS id, delivered_at IS NOT NULL AS delivered FROM sink_outbox WHERE created_at >= $1',
};

/** The two queries each store answers, its own way. */
interface Reader {
  count(sql: string): Promise<number>;
  notices(since: number): Promise<DrainOutcome['notices']>;
  close(): Promise<void>;
}

/** Open it before the consumers start: it counts the dead events already there. */
export async function openDrainProgress(databaseUrl: string): Promise<DrainProgress> {
  const reader = databaseUrl.startsWith('sqlite:')
    ? sqliteReader(databaseUrl.slice('sqlite:'.length))
    : await postgresReader(databaseUrl);
  const deadBefore = await reader.count(SQL.dead);
  return {
    due: () => reader.count(SQL.due),
    noticesPending: () => reader.count(SQL.pending),
    async outcome(since) {
      const deadEvents = (await reader.count(SQL.dead)) - deadBefore;
      return { deadEvents, notices: await reader.notices(since) };
    },
    close: () => reader.close(),
  };
}

function sqliteReader(file: string): Reader {
  const db = new Database(file, { readonly: true });
  const counts = new Map<string, Database.Statement<[], { n: number }>>();
  const notices = db.prepare<[number], { id: string; delivered: number }>(
    SQL.notices.replace('$1', '?'),
  );
  return {
    count: async (sql) => {
      // Prepared once each: they run every 50 ms.
      const statement = counts.get(sql) ?? db.prepare<[], { n: number }>(sql);
      counts.set(sql, statement);
      return statement.get()?.n ?? 0;
    },
    notices: async (since) =>
      notices.all(since).map((n) => ({ id: n.id, delivered: n.delivered === 1 })),
    close: async () => {
      db.close();
    },
  };
}

async function postgresReader(connectionString: string): Promise<Reader> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  return {
    count: async (sql) =>
      (await client.query<{ n: number }>(sql.replace('COUNT(*)', 'COUNT(*)::int'))).rows[0]?.n ?? 0,
    notices: async (since) =>
      (await client.query<{ id: string; delivered: boolean }>(SQL.notices, [since])).rows,
    close: () => client.end(),
  };
}
