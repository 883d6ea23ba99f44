/** The status sink's outbox on SQLite (see migrations/010_sink_outbox.sql). */
import type Database from 'better-sqlite3';
import {
  boundedError,
  noticeStream,
  type SinkOutboxColumns,
  type SinkOutboxRow,
  type SinkOutboxStatsColumns,
  type SinkOutboxStore,
  toOutboxRow,
  toOutboxStats,
} from '../sink-outbox.ts';
import type { StatusNotice } from '../status-notice.ts';
import { SINK_OUTBOX_SQL } from './sink-outbox-queries.ts';
import type { Synchronous } from './synchronous.ts';

type StoredRow = Omit<SinkOutboxColumns, 'notice'> & { notice: string };

const fromStored = (row: StoredRow): SinkOutboxRow =>
  toOutboxRow({ ...row, notice: JSON.parse(row.notice) as StatusNotice });

/**
 * Queues a notice, inside the caller's transaction (a status write's, on the writer thread);
 * a notice id queued already is left as it is. `traceParent` is the status write's caller's
 * context (this thread has none: sqlite-store.ts passes it along with the write).
 */
export function noticeEnqueuer(
  db: Database.Database,
): (notice: StatusNotice, now: number, traceParent: string | null) => void {
  const enqueue = db.prepare(SINK_OUTBOX_SQL.enqueue);
  return (notice, now, traceParent) => {
    enqueue.run({
      noticeId: notice.id,
      ...noticeStream(notice),
      notice: JSON.stringify(notice),
      now,
      traceParent,
    });
  };
}

/** Outbox writes, for the writer thread; each call runs atomically there. */
export function sinkOutboxWrites(
  db: Database.Database,
): Synchronous<Omit<SinkOutboxStore, 'stats' | 'list'>> {
  const due = db.prepare<{ now: number; limit: number }, StoredRow>(SINK_OUTBOX_SQL.due);
  const lease = db.prepare<{ seq: number; lockedUntil: number }>(SINK_OUTBOX_SQL.lease);
  const delivered = db.prepare<{ seq: number; now: number }>(SINK_OUTBOX_SQL.delivered);
  const failed = db.prepare<{ seq: number; error: string; nextAttemptAt: number }>(
    SINK_OUTBOX_SQL.failed,
  );
  const prune = db.prepare<[number, number]>(SINK_OUTBOX_SQL.pruneDelivered);
  return {
    // Selected and leased in one writer transaction (IMMEDIATE: another process's writer
    // waits), so no two deliveries hold the same notice.
    claimDue(now, limit, leaseMs) {
      const rows = due.all({ now, limit });
      for (const row of rows) lease.run({ seq: row.seq, lockedUntil: now + leaseMs });
      return rows.map(fromStored);
    },
    // One statement a notice, in the one transaction this call runs in: a batch's notices
    // are marked together for one commit.
    markDelivered(seqs, now) {
      for (const seq of seqs) delivered.run({ seq, now });
    },
    markFailed(seq, error, nextAttemptAt) {
      failed.run({ seq, error: boundedError(error), nextAttemptAt });
    },
    pruneDelivered(before, limit) {
      return prune.run(before, limit).changes;
    },
  };
}

/** Outbox reads, for the main thread. */
export function sinkOutboxReads(
  db: Database.Database,
): Synchronous<Pick<SinkOutboxStore, 'stats' | 'list'>> {
  const stats = db.prepare<[], SinkOutboxStatsColumns>(SINK_OUTBOX_SQL.stats);
  const lists = {
    all: db.prepare<[number], StoredRow>(SINK_OUTBOX_SQL.listAll),
    pending: db.prepare<[number], StoredRow>(SINK_OUTBOX_SQL.listPending),
    failing: db.prepare<[number], StoredRow>(SINK_OUTBOX_SQL.listFailing),
  };
  return {
    stats() {
      return toOutboxStats(stats.get());
    },
    list(options) {
      return lists[options.state ?? 'all'].all(options.limit).map(fromStored);
    },
  };
}
