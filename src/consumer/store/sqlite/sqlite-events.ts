/** The inbox table on SQLite (the contract is in ../events.ts). */
import type Database from 'better-sqlite3';
import { whyNotReplayed } from '../by-event-id.ts';
import type { ClaimRequest } from '../claims.ts';
import { decodeCursor, eventPage, NEWEST } from '../cursor.ts';
import {
  type ClaimedEvent,
  type DeadEventClosure,
  type EventColumns,
  type EventState,
  type EventStore,
  type InsertOutcome,
  type NewEvent,
  type OldestOpen,
  type OpenState,
  openCounts,
  type ReplayOutcome,
  type Settlement,
  type StoredEvent,
  toStoredEvent,
} from '../events.ts';
import { EVENT_SQL } from './events-queries.ts';
import { type ClaimStatements, createClaimStatements } from './sqlite-claims.ts';
import { bodyDropper } from './sqlite-retention.ts';
import type { Synchronous } from './synchronous.ts';

/** An events row as SQLite returns it: `test` is the integer 0 or 1 (SQLite has no boolean). */
type EventRow = Omit<EventColumns, 'test'> & { test: number };

const fromRow = (row: EventRow): StoredEvent => toStoredEvent({ ...row, test: row.test === 1 });

/** The inbox's writes: run on the writer thread (writer-thread.ts), one call per operation. */
export function eventWrites(db: Database.Database) {
  const claims = createClaimStatements(db);
  const insertRow = db.prepare<NewEvent & { testInt: number }>(EVENT_SQL.insert);
  const settleRow = db.prepare<{
    occurredAt: string;
    eventId: string;
    state: string;
    nextAttemptAt: number | null;
    error: string | null;
    now: number;
    messageId: string;
    token: string;
  }>(EVENT_SQL.settle);
  const dropBody = bodyDropper(db);
  const replayRow = db.prepare<{ now: number; eventId: string }>(EVENT_SQL.replay);
  const replayable = db.prepare<{ eventId: string }, { state: EventState; size: number }>(
    EVENT_SQL.replayable,
  );
  const closeDeadRows = db.prepare<DeadEventClosure, { event_id: string }>(EVENT_SQL.closeDead);

  return {
    insert(event: NewEvent): InsertOutcome {
      // A NewEvent built before migration 012 (a fork's, an older caller's) has no traceParent;
      // better-sqlite3 refuses a named parameter left undefined.
      const row = { ...event, testInt: event.test ? 1 : 0, traceParent: event.traceParent ?? null };
      return insertRow.run(row).changes === 1 ? 'inserted' : 'duplicate';
    },
    claimDue: dueClaimer(db, claims),
    settle(
      event: Pick<ClaimedEvent, 'occurredAt' | 'eventId' | 'messageId' | 'claim'>,
      settlement: Settlement,
      now: number,
    ): boolean {
      const settled =
        settleRow.run({
          occurredAt: event.occurredAt,
          eventId: event.eventId,
          messageId: event.messageId,
          token: event.claim.token,
          state: settlement.state,
          nextAttemptAt: settlement.state === 'pending' ? settlement.nextAttemptAt : null,
          error: 'error' in settlement ? settlement.error : null,
          now,
        }).changes === 1;
      if (settled) claims.release(event.claim);
      if (settled && 'dropBody' in settlement && settlement.dropBody === true) {
        dropBody(event);
      }
      return settled;
    },
    replay(eventId: string, now: number): ReplayOutcome {
      if (replayRow.run({ now, eventId }).changes === 1) return 'replayed';
      return whyNotReplayed(replayable.get({ eventId }));
    },
    closeDead(closure: DeadEventClosure): string[] {
      return closeDeadRows.all(closure).map((row) => row.event_id);
    },
  };
}

/**
 * claimDue on the writer thread. Candidates, each cheap whatever the backlog: events a dead
 * holder left in processing (there are few: at most what the handlers had in hand), then due
 * pending events in due order from the events_due index, skipping messages whose claim is live
 * (a primary-key probe per row). Only as many are read as it takes to find `limit` messages,
 * and of each only its message: the claimed events alone are read whole, by the statement that
 * marks them (a body costs more to read and to hand over than the rest of the row).
 */
function dueClaimer(db: Database.Database, claims: ClaimStatements) {
  type Candidate = { position: number; message_id: string };
  const duePending = db.prepare<{ now: number; window: number }, Candidate>(EVENT_SQL.duePending);
  const abandoned = db.prepare<{ now: number; window: number }, Candidate>(EVENT_SQL.abandoned);
  const markClaimed = db.prepare<
    { position: number; token: string; leaseUntil: number; now: number },
    EventRow
  >(EVENT_SQL.markClaimed);

  /** Up to `limit` candidates of different messages, reading no more rows than that takes. */
  const candidates = (now: number, limit: number): Candidate[] => {
    // The window bounds the rows read when several candidates belong to one message.
    const window = limit * 4 + 16;
    const found = new Map<string, Candidate>();
    for (const query of [abandoned, duePending]) {
      if (found.size >= limit) break;
      for (const row of query.iterate({ now, window })) {
        if (!found.has(row.message_id)) found.set(row.message_id, row);
        if (found.size >= limit) break;
      }
    }
    return [...found.values()];
  };

  return ({ now, limit, leaseMs, holder }: ClaimRequest & { limit: number }): ClaimedEvent[] => {
    // The scan, the claims and the event updates run in one transaction of the writer, so
    // they are atomic against every other process on the file.
    const claimed: ClaimedEvent[] = [];
    for (const candidate of candidates(now, limit)) {
      const claim = claims.acquire(candidate.message_id, { holder, now, leaseMs });
      if (claim === undefined) continue;
      const row = markClaimed.get({
        position: candidate.position,
        token: claim.token,
        leaseUntil: claim.leaseUntil,
        now,
      });
      if (row !== undefined) claimed.push({ ...fromRow(row), claim });
    }
    return claimed;
  };
}

type ListParameters = { at: number; id: number; limit: number };

/** The inbox's reads: run on the main thread's connection, which a write never blocks (WAL). */
export function eventReads(
  db: Database.Database,
): Synchronous<Pick<EventStore, 'get' | 'list' | 'countOpen' | 'oldestOpen'>> {
  const getRow = db.prepare<{ eventId: string }, EventRow>(EVENT_SQL.get);
  const listAll = db.prepare<ListParameters, EventRow & { position: number }>(EVENT_SQL.listAll);
  const listByState = db.prepare<
    ListParameters & { state: string },
    EventRow & { position: number }
  >(EVENT_SQL.listByState);
  const countStates = db.prepare<[], { state: OpenState; n: number }>(EVENT_SQL.countOpen);
  const oldest = db.prepare<[], OldestOpen>(EVENT_SQL.oldestOpen);
  return {
    get(eventId) {
      const row = getRow.get({ eventId });
      return row === undefined ? undefined : fromRow(row);
    },
    list({ state, limit, after }) {
      const from = { ...(after === undefined ? NEWEST : decodeCursor(after)), limit };
      const rows = state === undefined ? listAll.all(from) : listByState.all({ ...from, state });
      return eventPage(rows, limit, fromRow, (row) => ({
        at: row.received_at,
        id: row.position,
      }));
    },
    oldestOpen() {
      return oldest.get() ?? { pending: null, processing: null };
    },
    countOpen() {
      return openCounts(countStates.all());
    },
  };
}
