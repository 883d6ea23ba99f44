/**
 * Retention on SQLite: each call is one batch, run by the writer thread in one short
 * transaction (see RetentionStore in store.ts and src/consumer/retention/README.md).
 */
import type Database from 'better-sqlite3';
import type { ForgottenMessage, PruneBatch } from '../store.ts';
import { RETENTION_SQL } from './queries.ts';

const BODIES_MARK = 'bodies';
const FINISHED = ['done', 'skipped'] as const;

export function retentionWrites(db: Database.Database) {
  const mark = db.prepare<[string], { through_at: number; through_id: number }>(RETENTION_SQL.mark);
  const setMark = db.prepare<{ name: string; at: number; id: number }>(RETENTION_SQL.setMark);
  const arrivedAfter = db.prepare<
    { at: number; id: number; before: number; limit: number },
    { id: number; event_id: string; occurred_at: string; received_at: number; state: string }
  >(RETENTION_SQL.arrivedAfter);
  const dropBody = bodyDropper(db);
  const finishedBefore = db.prepare<
    { state: string; before: number; limit: number },
    { id: number; event_id: string; received_at: number }
  >(RETENTION_SQL.finishedBefore);
  const remember = db.prepare<[string, number]>(RETENTION_SQL.remember);
  const deleteEvent = db.prepare<[number]>(RETENTION_SQL.deleteEvent);
  const deleteEventChange = db.prepare<[string]>(RETENTION_SQL.deleteEventChange);
  const forgetSeen = db.prepare<[number, number]>(RETENTION_SQL.forgetSeen);
  const closedBefore = db.prepare<
    [number, number],
    { message_id: string; transfer: 'inbound' | 'outbound'; import_location: string | null }
  >(RETENTION_SQL.closedBefore);
  const deleteMessage = db.prepare<[string, string]>(RETENTION_SQL.deleteMessage);
  const deleteMessageChanges = db.prepare<[string, string]>(RETENTION_SQL.deleteMessageChanges);

  return {
    dropBodies(before: number, limit: number): PruneBatch {
      // Resumes after the last event it looked at: an event still open when the pass went by
      // keeps its body until retention deletes its row.
      const from = mark.get(BODIES_MARK) ?? { through_at: 0, through_id: 0 };
      const rows = arrivedAfter.all({ at: from.through_at, id: from.through_id, before, limit });
      let count = 0;
      for (const row of rows) {
        if (row.state === 'done' || row.state === 'skipped') {
          count += dropBody({ occurredAt: row.occurred_at, eventId: row.event_id });
        }
      }
      const last = rows.at(-1);
      if (last !== undefined) setMark.run({ name: BODIES_MARK, at: last.received_at, id: last.id });
      return { count, more: rows.length === limit };
    },

    pruneEvents(before: number, limit: number, { rememberSince }: { rememberSince: number }) {
      let count = 0;
      for (const state of FINISHED) {
        for (const row of finishedBefore.all({ state, before, limit: limit - count })) {
          if (row.received_at >= rememberSince) remember.run(row.event_id, row.received_at);
          deleteEventChange.run(row.event_id);
          deleteEvent.run(row.id);
          count++;
        }
        if (count === limit) break;
      }
      return { count, more: count === limit } satisfies PruneBatch;
    },

    forgetEventIds(before: number, limit: number): PruneBatch {
      const count = forgetSeen.run(before, limit).changes;
      return { count, more: count === limit };
    },

    pruneMessages(before: number, limit: number): PruneBatch & { forgotten: ForgottenMessage[] } {
      const rows = closedBefore.all(before, limit);
      for (const row of rows) {
        deleteMessageChanges.run(row.message_id, row.transfer);
        deleteMessage.run(row.message_id, row.transfer);
      }
      return {
        count: rows.length,
        more: rows.length === limit,
        forgotten: rows.map((row) => ({
          messageId: row.message_id,
          transfer: row.transfer,
          importLocation: row.import_location,
        })),
      };
    },
  };
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

/**
 * Frees pages at the end of the file (auto_vacuum=INCREMENTAL, set when the file is created).
 * Runs outside the writer's batch transaction: incremental_vacuum commits on its own.
 */
export function reclaimPages(db: Database.Database, pages: number): PruneBatch {
  if ((db.pragma('auto_vacuum', { simple: true }) as number) !== 2) {
    return { count: 0, more: false };
  }
  const free = db.pragma('freelist_count', { simple: true }) as number;
  const count = Math.min(free, pages);
  if (count > 0) db.pragma(`incremental_vacuum(${count})`);
  return { count, more: free > count };
}
