/**
 * Retention on SQLite: each call is one batch, which the writer thread runs alone, outside its
 * group transaction (STANDALONE_OPERATIONS in sqlite-writes.ts): its own IMMEDIATE
 * transaction, row by row until its limit or its time budget (see BatchBound and RetentionStore
 * in ../retention.ts, and src/consumer/retention/README.md), then the commit, then a checkpoint
 * of what it wrote. Its `ms` is all of that: how long the webhooks queued behind it waited.
 *
 * Why each batch checkpoints: SQLite copies the WAL back into the database file in the commit
 * that takes the WAL past 1,000 pages (wal_autocheckpoint), whoever's commit that is. A batch
 * deleting 64 events writes about 120 pages (each event's entries sit on random pages of the
 * eventId indexes), so every eighth batch or so a commit, as often a webhook's as retention's,
 * paid for writing back 1,000 scattered pages: 45 ms typically and up to 100 ms with a year of
 * history (BENCHMARKS.md, "Retention batches by time"). Checkpointing after each batch writes
 * back only its own pages, inside its own time, where its budget counts them.
 */
import type Database from 'better-sqlite3';
import type {
  BatchBound,
  DeadCutoffs,
  ForgottenMessage,
  PruneBatch,
  RetentionStore,
} from '../retention.ts';
import { RETENTION_SQL } from './retention-queries.ts';
import { SINK_OUTBOX_SQL } from './sink-outbox-queries.ts';
import { SUBMISSION_SQL } from './submissions-queries.ts';
import type { Synchronous } from './synchronous.ts';

const BODIES_MARK = 'bodies';
const FINISHED = ['done', 'skipped'] as const;
/** Rows of a set statement (forgetEventIds, pruneNotices) between two looks at the clock. */
const ROWS_PER_STATEMENT = 64;
/**
 * Pages of one incremental_vacuum between two looks at the clock: moving a page costs from
 * microseconds (a free page at the end of the file) to a few milliseconds (a page in use,
 * relocated after a search of a long freelist).
 */
const PAGES_PER_STATEMENT = 4;

type EventRow = { id: number; event_id: string; received_at: number };

/**
 * What a batch does inside its transaction, given `spent()` to ask between rows whether its
 * budget is used: how many rows, and whether there may be more.
 */
type Work<T extends { count: number; more: boolean }> = (spent: () => boolean) => T;

/** Runs one batch (see the header of this file); see retentionWrites for `clock`. */
type Batch = <T extends { count: number; more: boolean }>(
  bound: BatchBound,
  work: Work<T>,
) => T & PruneBatch;

/**
 * The retention writes of the writer thread: each a batch (batchRunner) of one step below.
 * `clock` (ms, monotonic) times the budget; tests pass one that runs fast to play a slow
 * statement.
 */
export function retentionWrites(
  db: Database.Database,
  clock: () => number = () => performance.now(),
): Synchronous<RetentionStore> {
  const batch = batchRunner(db, clock);
  const dropBodies = bodiesStep(db);
  const events = eventSteps(db);
  const messages = messageStep(db);
  const forgetSeen = db.prepare<[number, number]>(RETENTION_SQL.forgetSeen);
  const pruneDelivered = db.prepare<[number, number]>(SINK_OUTBOX_SQL.pruneDelivered);
  const pruneSettled = db.prepare<[number, number]>(SUBMISSION_SQL.pruneSettled);
  return {
    dropBodies: (before, bound) => batch(bound, (spent) => dropBodies(before, bound.limit, spent)),
    pruneEvents: (before, bound, { rememberSince }) =>
      batch(bound, (spent) => events.pruneFinished(before, bound.limit, rememberSince, spent)),
    pruneDeadEvents: (cutoffs, bound, { rememberSince }) =>
      batch(bound, (spent) => events.pruneDead(cutoffs, bound.limit, rememberSince, spent)),
    forgetEventIds: (before, bound) => batch(bound, inChunks(forgetSeen, before, bound.limit)),
    pruneMessages: (before, bound) => batch(bound, (spent) => messages(before, bound.limit, spent)),
    // Delivered notices of the status sink's outbox, as forgetEventIds deletes records.
    pruneNotices: (before, bound) => batch(bound, inChunks(pruneDelivered, before, bound.limit)),
    // Settled invoices of the submission outbox, the same way.
    pruneSubmissions: (before, bound) => batch(bound, inChunks(pruneSettled, before, bound.limit)),
    reclaim: (bound) => reclaim(db, batch, bound),
  };
}

/**
 * One batch: `work` in an IMMEDIATE transaction, given `spent()` to ask between rows whether
 * the budget is used; then the commit and the write-back of what it wrote.
 */
function batchRunner(db: Database.Database, clock: () => number): Batch {
  return (bound, work) => {
    const started = clock();
    const spent = () => clock() - started >= bound.budgetMs;
    const result = db.transaction(work).immediate(spent);
    // PASSIVE: copies what no reader still needs and never waits for one.
    db.pragma('wal_checkpoint(PASSIVE)');
    // The commit and the checkpoint count as work here: they write back the pages the batch
    // changed, which grow with its rows, and every webhook queued meanwhile waits for them.
    const ms = clock() - started;
    return { ...result, ms, workMs: ms };
  };
}

/** Runs a set statement (`before`, a row limit) in chunks until done or out of budget. */
function inChunks(
  statement: Database.Statement<[number, number]>,
  before: number,
  limit: number,
): Work<{ count: number; more: boolean }> {
  return (spent) => {
    let count = 0;
    while (count < limit) {
      const chunk = Math.min(ROWS_PER_STATEMENT, limit - count);
      const changes = statement.run(before, chunk).changes;
      count += changes;
      if (changes < chunk) return { count, more: false };
      if (spent()) break;
    }
    return { count, more: true };
  };
}

/** The step that empties finished events' bodies, in arrival order from where it stopped. */
function bodiesStep(db: Database.Database) {
  const mark = db.prepare<[string], { through_at: number; through_id: number }>(RETENTION_SQL.mark);
  const setMark = db.prepare<{ name: string; at: number; id: number }>(RETENTION_SQL.setMark);
  const arrivedAfter = db.prepare<
    { at: number; id: number; before: number; limit: number },
    { id: number; event_id: string; occurred_at: string; received_at: number; state: string }
  >(RETENTION_SQL.arrivedAfter);
  const dropBody = bodyDropper(db);
  return (before: number, limit: number, spent: () => boolean) => {
    // Resumes after the last event it looked at: an event still open when the pass went by
    // keeps its body until retention deletes its row.
    const from = mark.get(BODIES_MARK) ?? { through_at: 0, through_id: 0 };
    const rows = arrivedAfter.all({ at: from.through_at, id: from.through_id, before, limit });
    let count = 0;
    let looked = 0;
    for (const row of rows) {
      if (row.state === 'done' || row.state === 'skipped') {
        count += dropBody({ occurredAt: row.occurred_at, eventId: row.event_id });
      }
      looked++;
      if (looked < rows.length && spent()) break;
    }
    const last = rows[looked - 1];
    if (last !== undefined) {
      setMark.run({ name: BODIES_MARK, at: last.received_at, id: last.id });
    }
    return { count, more: looked < rows.length || rows.length === limit };
  };
}

/** The steps that delete finished and dead events. */
function eventSteps(db: Database.Database) {
  const finishedBefore = db.prepare<{ state: string; before: number; limit: number }, EventRow>(
    RETENTION_SQL.finishedBefore,
  );
  const deadBefore = db.prepare<
    { settledBefore: number; anyBefore: number; limit: number },
    EventRow
  >(RETENTION_SQL.deadBefore);
  const deleteEvents = eventDeleter(db);
  return {
    pruneFinished(before: number, limit: number, rememberSince: number, spent: () => boolean) {
      let count = 0;
      for (const state of FINISHED) {
        const rows = finishedBefore.all({ state, before, limit: limit - count });
        const deleted = deleteEvents(rows, rememberSince, spent);
        count += deleted.count;
        if (deleted.stopped) return { count, more: true };
        if (count === limit) break;
        // Only after rows: a state with none left says nothing of the time, and stopping
        // there would answer `more` for ever without deleting anything.
        if (rows.length > 0 && spent()) return { count, more: true };
      }
      return { count, more: count === limit };
    },
    pruneDead(cutoffs: DeadCutoffs, limit: number, rememberSince: number, spent: () => boolean) {
      const rows = deadBefore.all({
        settledBefore: cutoffs.settled,
        anyBefore: cutoffs.any,
        limit,
      });
      const { count, stopped } = deleteEvents(rows, rememberSince, spent);
      return { count, more: stopped || rows.length === limit };
    },
  };
}

/** Deletes events (their status changes with them), keeping recent eventIds for dedupe. */
function eventDeleter(db: Database.Database) {
  const remember = db.prepare<[string, number]>(RETENTION_SQL.remember);
  const deleteEvent = db.prepare<[number]>(RETENTION_SQL.deleteEvent);
  const deleteEventChange = db.prepare<[string]>(RETENTION_SQL.deleteEventChange);
  return (
    rows: EventRow[],
    rememberSince: number,
    spent: () => boolean,
  ): { count: number; stopped: boolean } => {
    let count = 0;
    for (const row of rows) {
      if (row.received_at >= rememberSince) remember.run(row.event_id, row.received_at);
      deleteEventChange.run(row.event_id);
      deleteEvent.run(row.id);
      count++;
      if (count < rows.length && spent()) return { count, stopped: true };
    }
    return { count, stopped: false };
  };
}

/** The step on messages: deleting final sides with their status changes. */
function messageStep(db: Database.Database) {
  const closedBefore = db.prepare<
    [number, number],
    { message_id: string; transfer: 'inbound' | 'outbound'; import_location: string | null }
  >(RETENTION_SQL.closedBefore);
  const deleteMessage = db.prepare<[string, string]>(RETENTION_SQL.deleteMessage);
  const deleteMessageChanges = db.prepare<[string, string]>(RETENTION_SQL.deleteMessageChanges);
  return (before: number, limit: number, spent: () => boolean) => {
    const rows = closedBefore.all(before, limit);
    const forgotten: ForgottenMessage[] = [];
    for (const row of rows) {
      deleteMessageChanges.run(row.message_id, row.transfer);
      deleteMessage.run(row.message_id, row.transfer);
      forgotten.push({
        messageId: row.message_id,
        transfer: row.transfer,
        importLocation: row.import_location,
      });
      if (forgotten.length < rows.length && spent()) break;
    }
    return {
      count: forgotten.length,
      more: forgotten.length < rows.length || rows.length === limit,
      forgotten,
    };
  };
}

/**
 * Frees pages at the end of the file (auto_vacuum=INCREMENTAL, set when the file is created),
 * a few at a time; the checkpoint that follows the commit shortens the file.
 */
function reclaim(db: Database.Database, batch: Batch, bound: BatchBound): PruneBatch {
  if ((db.pragma('auto_vacuum', { simple: true }) as number) !== 2) {
    return { count: 0, more: false, ms: 0, workMs: 0 };
  }
  return batch(bound, (spent) => {
    const free = db.pragma('freelist_count', { simple: true }) as number;
    const target = Math.min(free, bound.limit);
    let count = 0;
    while (count < target) {
      const pages = Math.min(PAGES_PER_STATEMENT, target - count);
      db.pragma(`incremental_vacuum(${pages})`);
      count += pages;
      if (spent()) break;
    }
    return { count, more: free > count };
  });
}

/**
 * Drops one event's body (see RETENTION_SQL.withBody for why by delete and insert); 1 if it
 * had one. Runs inside the caller's transaction.
 */
export function bodyDropper(
  db: Database.Database,
): (event: { occurredAt: string; eventId: string }) => number {
  const withBody = db.prepare<{ occurredAt: string; eventId: string }, Record<string, unknown>>(
    RETENTION_SQL.withBody,
  );
  const deleteEvent = db.prepare<[number]>(RETENTION_SQL.deleteEvent);
  const insertWithoutBody = db.prepare(RETENTION_SQL.insertWithoutBody);
  return ({ occurredAt, eventId }) => {
    const row = withBody.get({ occurredAt, eventId });
    if (row === undefined) return 0;
    deleteEvent.run(row.id as number);
    insertWithoutBody.run(row);
    return 1;
  };
}
