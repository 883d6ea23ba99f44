/**
 * What retention may delete, in bounded batches (src/consumer/retention/ runs them).
 */
import type { MessageKey } from './messages.ts';

/**
 * How much one retention batch may do: at most `limit` rows (pages for `reclaim`), and no more
 * once it has held the store for `budgetMs`. The budget is checked between rows (between a few
 * pages, between statements of a few dozen rows on PostgreSQL), so a batch ends within one
 * row of it whatever the rows cost; the caller sizes `limit` so most batches end before it.
 */
export interface BatchBound {
  limit: number;
  budgetMs: number;
}

/**
 * What one retention batch did. `more` is true when it stopped at its limit or its budget
 * (there may be more to do); `ms` is how long it held the store: on SQLite the writer thread,
 * from the start of its transaction to the end of its write-back (a WAL checkpoint of what it
 * wrote); on PostgreSQL its transaction, from BEGIN to COMMIT. `workMs` is the part of it
 * that grows with the batch's rows, which the pruner sizes batches by: on SQLite all of it (the
 * commit and checkpoint write back the pages the batch changed); on PostgreSQL the time before
 * COMMIT, because a commit there (an fsync: 5 to 15 ms on a cloud disk) costs the same for one
 * row as for a hundred, and sizing by it shrank every batch to a row or two.
 */
export interface PruneBatch {
  count: number;
  more: boolean;
  ms: number;
  workMs: number;
}

/** A message side retention deleted, for the importer's forget hook. */
export interface ForgottenMessage extends MessageKey {
  importLocation: string | null;
}

/** The cut-offs of dead events (ms since the epoch of their arrival); see pruneDeadEvents. */
export interface DeadCutoffs {
  /** A dead event of a settled message received before this is deleted. */
  settled: number;
  /** Any dead event received before this is deleted (at most `settled`). */
  any: number;
}

/**
 * Retention, in batches a caller repeats while `more` (src/consumer/retention/pruner.ts). Each
 * batch is one short transaction that walks an index from its oldest entry, so its cost does
 * not grow with history, and stops at its BatchBound, so no batch holds the store much past
 * its budget. Only finished events (done, skipped), dead events as pruneDeadEvents says,
 * final messages (delivered, failed, parked) and delivered sink notices are ever deleted. Where several processes share
 * the store, one prunes at a time: a batch that finds another pruning reports nothing to do.
 */
export interface RetentionStore {
  /** Empties the bodies of finished events received before `before`, oldest first. */
  dropBodies(before: number, bound: BatchBound): Promise<PruneBatch>;
  /**
   * Deletes finished events received before `before` with their status changes, keeping the
   * eventId of each received since `rememberSince` in the dedupe record (insert still answers
   * `duplicate` for it; an older one is past the dedupe period already).
   */
  pruneEvents(
    before: number,
    bound: BatchBound,
    options: { rememberSince: number },
  ): Promise<PruneBatch>;
  /**
   * Deletes dead events that nobody will act on any more, as pruneEvents deletes finished ones
   * (status changes with them, eventIds kept in the dedupe record since `rememberSince`): those
   * of a settled message (acknowledged, or final at the service: delivered, failed, parked)
   * received before `cutoffs.settled`, and any received before `cutoffs.any`. A dead event of a
   * message still open stays until then: an operator may replay it, and reconciliation finds
   * the message without it.
   */
  pruneDeadEvents(
    cutoffs: DeadCutoffs,
    bound: BatchBound,
    options: { rememberSince: number },
  ): Promise<PruneBatch>;
  /** Forgets dedupe records of events received before `before`. */
  forgetEventIds(before: number, bound: BatchBound): Promise<PruneBatch>;
  /** Deletes final message sides whose last news is older than `before`, with their changes. */
  pruneMessages(
    before: number,
    bound: BatchBound,
  ): Promise<PruneBatch & { forgotten: ForgottenMessage[] }>;
  /**
   * Deletes notices of the status sink's outbox delivered before `before`, oldest delivery
   * first; an undelivered notice is never deleted, however old.
   */
  pruneNotices(before: number, bound: BatchBound): Promise<PruneBatch>;
  /**
   * Deletes invoices of the submission outbox settled before `before`, oldest first; an open
   * one is never deleted, however old.
   */
  pruneSubmissions(before: number, bound: BatchBound): Promise<PruneBatch>;
  /**
   * Gives up to `bound.limit` pages of freed space back to the file system (SQLite in
   * incremental auto_vacuum mode); PostgreSQL's autovacuum does this itself (count 0).
   */
  reclaim(bound: BatchBound): Promise<PruneBatch>;
}
