/** The inbox table on SQLite. */
import type Database from 'better-sqlite3';
import {
  type ClaimedEvent,
  EVENT_STATES,
  type EventState,
  type EventStore,
  type InsertOutcome,
  type NewEvent,
  type StoredEvent,
  StoreError,
} from '../store.ts';
import { createGroupCommit } from './group-commit.ts';
import { createClaimStatements } from './sqlite-claims.ts';

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
  const claims = createClaimStatements(db);
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

  // Candidates for claimDue, each cheap whatever the backlog: due pending events in due order
  // from the events_due index, skipping messages whose claim is live (a primary-key probe per
  // row), and events a dead holder left in processing (there are few: at most what the
  // handlers had in hand).
  const duePending = db.prepare<{ now: number; window: number }, EventRow>(`
    SELECT e.* FROM events e
     WHERE e.state = 'pending' AND e.next_attempt_at <= @now
       AND NOT EXISTS (SELECT 1 FROM message_claims c
                        WHERE c.message_id = e.message_id AND c.lease_until >= @now)
     ORDER BY e.next_attempt_at
     LIMIT @window`);
  const abandoned = db.prepare<{ now: number; window: number }, EventRow>(`
    SELECT e.* FROM events e
     WHERE e.state = 'processing'
       AND NOT EXISTS (SELECT 1 FROM message_claims c
                        WHERE c.message_id = e.message_id AND c.lease_until >= @now)
     LIMIT @window`);
  const markClaimed = db.prepare<{
    eventId: string;
    token: string;
    leaseUntil: number;
    now: number;
  }>(`
    UPDATE events
       SET state = 'processing', attempts = attempts + 1, claim_token = @token,
           locked_until = @leaseUntil, updated_at = @now
     WHERE event_id = @eventId`);
  const settleRow = db.prepare<{
    eventId: string;
    state: string;
    nextAttemptAt: number | null;
    error: string | null;
    now: number;
    messageId: string;
    token: string;
  }>(`
    UPDATE events
       SET state = @state, claim_token = NULL, locked_until = NULL, last_error = @error,
           updated_at = @now, next_attempt_at = COALESCE(@nextAttemptAt, next_attempt_at)
     WHERE event_id = @eventId AND state = 'processing' AND claim_token = @token
       AND EXISTS (SELECT 1 FROM message_claims c
                    WHERE c.message_id = @messageId AND c.token = @token)`);
  const replayRow = db.prepare<{ now: number; eventId: string }>(`
    UPDATE events
       SET state = 'pending', attempts = 0, next_attempt_at = @now, locked_until = NULL,
           claim_token = NULL, updated_at = @now
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
    async claimDue({ now, limit, leaseMs, holder }) {
      // One write transaction: the scan, the claims and the event updates are atomic against
      // every other process on the file. The window is wider than `limit` because several
      // candidates may belong to one message.
      return db
        .transaction(() => {
          const window = limit * 4 + 16;
          const candidates = [
            ...abandoned.all({ now, window }),
            ...duePending.all({ now, window }),
          ];
          const taken = new Set<string>();
          const claimed: ClaimedEvent[] = [];
          for (const row of candidates) {
            if (claimed.length >= limit) break;
            if (taken.has(row.message_id)) continue;
            taken.add(row.message_id);
            const claim = claims.acquire(row.message_id, { holder, now, leaseMs });
            if (claim === undefined) continue;
            markClaimed.run({
              eventId: row.event_id,
              token: claim.token,
              leaseUntil: claim.leaseUntil,
              now,
            });
            claimed.push({
              ...toStoredEvent(row),
              state: 'processing',
              attempts: row.attempts + 1,
              lockedUntil: claim.leaseUntil,
              updatedAt: now,
              claim,
            });
          }
          return claimed;
        })
        .immediate();
    },
    async settle(event, settlement, now) {
      return db.transaction(() => {
        const settled =
          settleRow.run({
            eventId: event.eventId,
            messageId: event.messageId,
            token: event.claim.token,
            state: settlement.state,
            nextAttemptAt: settlement.state === 'pending' ? settlement.nextAttemptAt : null,
            error: 'error' in settlement ? settlement.error : null,
            now,
          }).changes === 1;
        if (settled) claims.release(event.claim);
        return settled;
      })();
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
