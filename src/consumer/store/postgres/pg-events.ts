/**
 * The inbox on PostgreSQL (see migrations/001_schema.sql and the contract in ../events.ts):
 * inserts batched per turn of the event loop (pg-events-insert.ts), the worker's claims and
 * settlements (pg-events-claim.ts), and here the reads, replays and closings.
 */
import type pg from 'pg';
import { byEventIdSql, SETTLED, whyNotReplayed } from '../by-event-id.ts';
import { decodeCursor, eventPage, NEWEST } from '../cursor.ts';
import {
  EVENT_COLUMNS,
  type EventColumns,
  type EventState,
  type EventStore,
  type OldestOpen,
  type OpenState,
  openCounts,
  toStoredEvent,
} from '../events.ts';
import { claimDueEvents, settleEvent } from './pg-events-claim.ts';
import { createInsertBatcher } from './pg-events-insert.ts';

// Keyset pagination: each page starts at the cursor's place in the index.
const LIST_ALL = `
  SELECT ${EVENT_COLUMNS}, seq FROM events WHERE (received_at, seq) < ($1, $2)
   ORDER BY received_at DESC, seq DESC LIMIT $3`;
const LIST_BY_STATE = `
  SELECT ${EVENT_COLUMNS}, seq FROM events
   WHERE state = $1 AND (received_at, seq) < ($2, $3)
   ORDER BY received_at DESC, seq DESC LIMIT $4`;

const COUNT_OPEN = `
  SELECT state, count(*)::int AS n FROM events
   WHERE state IN ('pending', 'processing', 'dead') GROUP BY state`;

// As on SQLite (events-queries.ts): an index probe each (events_state_received, events_due).
const OLDEST_OPEN = `
  SELECT (SELECT min(received_at) FROM events WHERE state = 'pending') AS pending,
         (SELECT min(updated_at) FROM events WHERE state = 'processing') AS processing`;

const REPLAY = `
  UPDATE events
     SET state = 'pending', attempts = 0, next_attempt_at = $2, locked_until = NULL,
         claim_token = NULL, resolution = NULL, updated_at = $2
   WHERE event_id = $1 AND ${SETTLED} AND length(body) > 0`;

// Through events_dead (migration 009), a partial index of dead events by message.
const CLOSE_DEAD = `
  UPDATE events SET state = 'done', resolution = $4, updated_at = $5
   WHERE message_id = $1 AND state = 'dead' AND transfer = $2 AND action = $3
   RETURNING event_id`;

export function createPostgresEventStore(pool: pg.Pool): EventStore {
  return {
    insert: createInsertBatcher(pool),

    async get(eventId) {
      const { rows } = await pool.query<EventColumns>(byEventIdSql(EVENT_COLUMNS, '$1'), [eventId]);
      return rows[0] === undefined ? undefined : toStoredEvent(rows[0]);
    },

    async list({ state, limit, after }) {
      const from = after === undefined ? NEWEST : decodeCursor(after);
      const { rows } =
        state === undefined
          ? await pool.query<EventColumns & { seq: number }>(LIST_ALL, [from.at, from.id, limit])
          : await pool.query<EventColumns & { seq: number }>(LIST_BY_STATE, [
              state,
              from.at,
              from.id,
              limit,
            ]);
      return eventPage(rows, limit, toStoredEvent, (row) => ({ at: row.received_at, id: row.seq }));
    },

    async countOpen() {
      const { rows } = await pool.query<{ state: OpenState; n: number }>(COUNT_OPEN);
      return openCounts(rows);
    },

    async oldestOpen() {
      const { rows } = await pool.query<OldestOpen>(OLDEST_OPEN, []);
      return rows[0] ?? { pending: null, processing: null };
    },

    claimDue: (request) => claimDueEvents(pool, request),
    async settle(event, settlement, now, after = []) {
      await Promise.all(after);
      return settleEvent(pool, event, settlement, now);
    },

    async replay(eventId, now) {
      const { rowCount } = await pool.query(REPLAY, [eventId, now]);
      if (rowCount === 1) return 'replayed';
      const { rows } = await pool.query<{ state: EventState; size: number }>(
        byEventIdSql('state, length(body) AS size', '$1'),
        [eventId],
      );
      return whyNotReplayed(rows[0]);
    },

    async closeDead({ messageId, transfer, action, resolution, now }) {
      const { rows } = await pool.query<{ event_id: string }>(CLOSE_DEAD, [
        messageId,
        transfer,
        action,
        resolution,
        now,
      ]);
      return rows.map((row) => row.event_id);
    },
  };
}
