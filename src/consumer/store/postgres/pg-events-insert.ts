/**
 * The inbox's inserts on PostgreSQL (pg-events.ts): the webhooks of one turn of the event loop
 * go in one statement, one commit, so a burst shares the cost of PostgreSQL's fsync. The same
 * statement notifies INBOX_CHANNEL, which PostgreSQL delivers at commit, once per
 * transaction, to the replicas listening (inbox-listener.ts).
 */
import type pg from 'pg';
import { SETTLED } from '../by-event-id.ts';
import type { InsertOutcome, NewEvent } from '../events.ts';

/** Other processes on the database LISTEN here to start new work at once. */
export const INBOX_CHANNEL = 'consumer_inbox';

/** Events in one statement at most; the rest of a larger burst goes in the next. */
const MAX_BATCH = 500;

/** The fields an insert sends, in the order of its VALUES, with their SQL types. */
const INSERTED: ReadonlyArray<readonly [keyof NewEvent, string]> = [
  ['eventId', 'text'],
  ['action', 'text'],
  ['transfer', 'text'],
  ['messageId', 'text'],
  ['party', 'text'],
  ['occurredAt', 'text'],
  ['test', 'boolean'],
  ['flag', 'text'],
  ['body', 'bytea'],
  ['receivedAt', 'bigint'],
  ['traceParent', 'text'],
];

/** Inserts `events` in one statement; the eventIds it inserted (the others are duplicates). */
async function insertEvents(pool: pg.Pool, events: NewEvent[]): Promise<Set<string>> {
  const values: unknown[] = [];
  const rows = events.map((event, i) => {
    values.push(...INSERTED.map(([field]) => event[field] ?? null));
    const n = i * INSERTED.length;
    return `(${INSERTED.map(([, type], j) => `$${n + j + 1}::${type}`).join(', ')})`;
  });
  // A duplicate is an event in the inbox, or one retention removed from it (seen_events), or
  // a finished one's eventId alone (the inbox's key: store/README.md).
  const { rows: inserted } = await pool.query<{ event_id: string }>(
    `WITH inserted AS (
       INSERT INTO events (event_id, action, transfer, message_id, party, occurred_at, test, flag,
                           body, received_at, trace_parent, next_attempt_at, updated_at)
       SELECT v.*, v.received_at, v.received_at
         FROM (VALUES ${rows.join(', ')})
           AS v(event_id, action, transfer, message_id, party, occurred_at, test, flag, body,
                received_at, trace_parent)
        WHERE NOT EXISTS (SELECT 1 FROM seen_events s WHERE s.event_id = v.event_id)
          AND NOT EXISTS (SELECT 1 FROM events WHERE event_id = v.event_id AND ${SETTLED})
       ON CONFLICT (occurred_at, event_id) DO NOTHING
       RETURNING event_id)
     SELECT event_id, pg_notify('${INBOX_CHANNEL}', '') FROM inserted`,
    values,
  );
  return new Set(inserted.map((row) => row.event_id));
}

/**
 * `insert` for the event store: queues the event for the next turn's statement and resolves
 * with its outcome. If a statement fails (one row broke a rule), each of its events is
 * inserted again alone, so it cannot fail its neighbours.
 */
export function createInsertBatcher(pool: pg.Pool): (event: NewEvent) => Promise<InsertOutcome> {
  let queue: {
    event: NewEvent;
    resolve: (o: InsertOutcome) => void;
    reject: (e: unknown) => void;
  }[] = [];
  let scheduled = false;

  const settle = (batch: typeof queue, inserted: Set<string>) => {
    for (const entry of batch) {
      // Two calls for one eventId in one batch: the first is the insert, the rest duplicates.
      const fresh = inserted.delete(entry.event.eventId);
      entry.resolve(fresh ? 'inserted' : 'duplicate');
    }
  };

  const flush = async () => {
    scheduled = false;
    const batch = queue.slice(0, MAX_BATCH);
    queue = queue.slice(MAX_BATCH);
    if (queue.length > 0) schedule();
    try {
      const events = batch.map((entry) => entry.event);
      settle(batch, await insertEvents(pool, events));
    } catch {
      for (const entry of batch) {
        try {
          settle([entry], await insertEvents(pool, [entry.event]));
        } catch (error) {
          entry.reject(error);
        }
      }
    }
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => void flush());
  };
  return (event: NewEvent) =>
    new Promise<InsertOutcome>((resolve, reject) => {
      queue.push({ event, resolve, reject });
      schedule();
    });
}
