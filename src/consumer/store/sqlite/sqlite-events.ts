/** The inbox table on SQLite. */
import type Database from 'better-sqlite3';
import {
  EVENT_STATES,
  type EventState,
  type EventStore,
  type InsertOutcome,
  type NewEvent,
  type StoredEvent,
  StoreError,
} from '../store.ts';
import { createGroupCommit } from './group-commit.ts';

interface EventRow {
  event_id: string;
  action: string;
  transfer: 'inbound' | 'outbound';
  message_id: string;
  party: string;
  occurred_at: string;
  test: number;
  flag: 'test' | 'unknown_action' | null;
  body: Buffer;
  received_at: number;
  state: EventState;
  attempts: number;
  next_attempt_at: number;
  locked_until: number | null;
  last_error: string | null;
  updated_at: number;
}

function toStoredEvent(row: EventRow): StoredEvent {
  return {
    eventId: row.event_id,
    action: row.action,
    transfer: row.transfer,
    messageId: row.message_id,
    party: row.party,
    occurredAt: row.occurred_at,
    test: row.test === 1,
    flag: row.flag,
    body: row.body,
    receivedAt: row.received_at,
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lockedUntil: row.locked_until,
    lastError: row.last_error,
    updatedAt: row.updated_at,
  };
}

export function createSqliteEventStore(db: Database.Database): EventStore {
  const insertRow = db.prepare<NewEvent & { testInt: number }>(`
    INSERT INTO events (event_id, action, transfer, message_id, party, occurred_at, test, flag,
                        body, received_at, next_attempt_at, updated_at)
    VALUES (@eventId, @action, @transfer, @messageId, @party, @occurredAt, @testInt, @flag,
            @body, @receivedAt, @receivedAt, @receivedAt)
    ON CONFLICT (event_id) DO NOTHING`);
  const getRow = db.prepare<[string], EventRow>('SELECT * FROM events WHERE event_id = ?');
  const listAll = db.prepare<[number], EventRow>(
    'SELECT * FROM events ORDER BY received_at DESC, rowid DESC LIMIT ?',
  );
  const listByState = db.prepare<[string, number], EventRow>(
    'SELECT * FROM events WHERE state = ? ORDER BY received_at DESC, rowid DESC LIMIT ?',
  );
  const countStates = db.prepare<[], { state: EventState; n: number }>(
    'SELECT state, COUNT(*) AS n FROM events GROUP BY state',
  );

  // One event per message, and none of a message another worker holds: events of the same
  // message are never handled at once. An expired lease is a dead worker's claim; take it over.
  const claim = db.prepare<{ now: number; limit: number; lockedUntil: number }, EventRow>(`
    UPDATE events
       SET state = 'processing', attempts = attempts + 1, locked_until = @lockedUntil,
           updated_at = @now
     WHERE event_id IN (
       SELECT event_id FROM (
         SELECT e.event_id, e.received_at, e.rowid AS seq,
                ROW_NUMBER() OVER (PARTITION BY e.message_id ORDER BY e.received_at, e.rowid) AS n
           FROM events e
          WHERE ((e.state = 'pending' AND e.next_attempt_at <= @now)
                 OR (e.state = 'processing' AND e.locked_until < @now))
            AND NOT EXISTS (
                  SELECT 1 FROM events busy
                   WHERE busy.message_id = e.message_id
                     AND busy.state = 'processing' AND busy.locked_until >= @now)
       )
        WHERE n = 1
        ORDER BY received_at, seq
        LIMIT @limit)
    RETURNING *`);
  const settleRow = db.prepare<{
    eventId: string;
    state: string;
    nextAttemptAt: number | null;
    error: string | null;
    now: number;
  }>(`
    UPDATE events
       SET state = @state, locked_until = NULL, last_error = @error, updated_at = @now,
           next_attempt_at = COALESCE(@nextAttemptAt, next_attempt_at)
     WHERE event_id = @eventId AND state = 'processing'`);
  const release = db.prepare<[number]>(
    "UPDATE events SET state = 'pending', locked_until = NULL, updated_at = ? WHERE state = 'processing'",
  );
  const replayRow = db.prepare<{ now: number; eventId: string }>(`
    UPDATE events
       SET state = 'pending', attempts = 0, next_attempt_at = @now, locked_until = NULL,
           updated_at = @now
     WHERE event_id = @eventId AND state IN ('dead', 'done', 'skipped')`);

  const write = (event: NewEvent): InsertOutcome =>
    insertRow.run({ ...event, testInt: event.test ? 1 : 0 }).changes === 1
      ? 'inserted'
      : 'duplicate';
  const commits = createGroupCommit<NewEvent, InsertOutcome>({
    write,
    transaction: (items, run) => db.transaction(() => items.map(run)).immediate(),
  });

  return {
    async insert(event) {
      try {
        return await commits.submit(event);
      } catch (error) {
        throw new StoreError(`Could not store event ${event.eventId}`, { cause: error });
      }
    },
    async get(eventId) {
      const row = getRow.get(eventId);
      return row === undefined ? undefined : toStoredEvent(row);
    },
    async list({ state, limit }) {
      const rows = state === undefined ? listAll.all(limit) : listByState.all(state, limit);
      return rows.map(toStoredEvent);
    },
    async claimDue({ now, limit, leaseMs }) {
      // RETURNING gives no order; the worker starts the oldest first.
      return claim
        .all({ now, limit, lockedUntil: now + leaseMs })
        .map(toStoredEvent)
        .sort((a, b) => a.receivedAt - b.receivedAt);
    },
    async settle(eventId, settlement, now) {
      settleRow.run({
        eventId,
        state: settlement.state,
        nextAttemptAt: settlement.state === 'pending' ? settlement.nextAttemptAt : null,
        error: 'error' in settlement ? settlement.error : null,
        now,
      });
    },
    async releaseClaims(now) {
      return release.run(now).changes;
    },
    async replay(eventId, now) {
      if (replayRow.run({ now, eventId }).changes === 1) return 'replayed';
      return getRow.get(eventId) === undefined ? 'not_found' : 'not_replayable';
    },
    async countByState() {
      const counts = Object.fromEntries(EVENT_STATES.map((s) => [s, 0])) as Record<
        EventState,
        number
      >;
      for (const { state, n } of countStates.all()) counts[state] = n;
      return counts;
    },
  };
}
