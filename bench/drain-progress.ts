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

/** Open it before the consumers start: it counts the dead events already there. */
export async function openDrainProgress(databaseUrl: string): Promise<DrainProgress> {
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new Database(databaseUrl.slice('sqlite:'.length), { readonly: true });
    const count = (sql: string) => {
      const statement = db.prepare<[], { n: number }>(sql);
      return async () => statement.get()?.n ?? 0;
    };
    const notices = db.prepare<[number], { id: string; delivered: number }>(
      SQL.notices.replace('$1', '?'),
    );
    const dead = count(SQL.dead);
    const deadBefore = await dead();
    return {
      due: count(SQL.due),
      noticesPending: count(SQL.pending),
      async outcome(since) {
        return {
          deadEvents: (await dead()) - deadBefore,
          notices: notices.all(since).map((n) => ({ id: n.id, delivered: n.delivered === 1 })),
        };
      },
      close: async () => {
        db.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const count = (sql: string) => async () =>
    (await client.query<{ n: number }>(sql.replace('COUNT(*)', 'COUNT(*)::int'))).rows[0]?.n ?? 0;
  const dead = count(SQL.dead);
  const deadBefore = await dead();
  return {
    due: count(SQL.due),
    noticesPending: count(SQL.pending),
    async outcome(since) {
      const { rows } = await client.query<{ id: string; delivered: boolean }>(SQL.notices, [since]);
      return { deadEvents: (await dead()) - deadBefore, notices: rows };
    },
    close: () => client.end(),
  };
}
