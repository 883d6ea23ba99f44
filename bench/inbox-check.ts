/**
 * The durability check after a run, made on the SQLite file itself once the consumer has
 * closed it: every event the client got a 2xx for must be a row of the inbox. Rows may
 * exceed acknowledgements by the requests in flight when the load stopped (committed, but
 * their connections were closed before the answer was read): at most one per connection
 * per load run.
 */
import Database from 'better-sqlite3';
import pg from 'pg';

export interface InboxCheck {
  rows: number;
  acknowledged: number;
  /** Acknowledged events with no row: must be 0. */
  missing: number;
  /** Rows whose answer the client never read. */
  unanswered: number;
  ok: boolean;
}

export function checkInbox(
  databasePath: string,
  acknowledged: ReadonlySet<string>,
  maxUnanswered: number,
): InboxCheck {
  const db = new Database(databasePath, { readonly: true });
  try {
    const stored = db
      .prepare<[], { event_id: string }>('SELECT event_id FROM events')
      .all()
      .map((row) => row.event_id);
    return compare(new Set(stored), acknowledged, maxUnanswered);
  } finally {
    db.close();
  }
}

/** The same check on a PostgreSQL database. */
export async function checkPostgresInbox(
  url: string,
  acknowledged: ReadonlySet<string>,
  maxUnanswered: number,
): Promise<InboxCheck> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ event_id: string }>('SELECT event_id FROM events');
    return compare(new Set(rows.map((row) => row.event_id)), acknowledged, maxUnanswered);
  } finally {
    await client.end();
  }
}

/** The check itself, on the inbox's event ids however they were read. */
function compare(
  stored: ReadonlySet<string>,
  acknowledged: ReadonlySet<string>,
  maxUnanswered: number,
): InboxCheck {
  let missing = 0;
  for (const eventId of acknowledged) if (!stored.has(eventId)) missing++;
  const unanswered = stored.size - (acknowledged.size - missing);
  return {
    rows: stored.size,
    acknowledged: acknowledged.size,
    missing,
    unanswered,
    ok: missing === 0 && unanswered <= maxUnanswered,
  };
}
