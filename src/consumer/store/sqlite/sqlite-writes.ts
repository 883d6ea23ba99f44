/**
 * Every write the SQLite store makes, by name: what the writer thread runs (writer-thread.ts)
 * and what the main thread may ask for (writer.ts). One name, one atomic call.
 */
import type Database from 'better-sqlite3';
import type { NewEvent } from '../events.ts';
import { HEALTH_SQL } from './health-queries.ts';
import { claimWrites } from './sqlite-claims.ts';
import { eventWrites } from './sqlite-events.ts';
import { messageWrites } from './sqlite-messages.ts';
import { retentionWrites } from './sqlite-retention.ts';
import { sinkOutboxWrites } from './sqlite-sink-outbox.ts';
import { submissionWrites } from './sqlite-submissions.ts';

export function createWriteOperations(db: Database.Database) {
  const events = eventWrites(db);
  const claims = claimWrites(db);
  const messages = messageWrites(db);
  const retention = retentionWrites(db);
  const sinkOutbox = sinkOutboxWrites(db);
  const submissions = submissionWrites(db);
  const touchHealth = db.prepare<[number]>(HEALTH_SQL.touch);
  return {
    // A Buffer crosses to this thread as a plain Uint8Array; SQLite binds only Buffers.
    'events.insert': (event: NewEvent) => events.insert({ ...event, body: asBuffer(event.body) }),
    'events.claimDue': events.claimDue,
    'events.settle': events.settle,
    'events.replay': events.replay,
    'events.closeDead': events.closeDead,
    'claims.acquire': claims.acquire,
    'claims.renew': claims.renew,
    'claims.release': claims.release,
    'claims.releaseHolder': claims.releaseHolder,
    'messages.recordSnapshot': messages.recordSnapshot,
    'messages.applyStatus': messages.applyStatus,
    'messages.recordStatusChange': messages.recordStatusChange,
    'messages.markImportStarted': messages.markImportStarted,
    'messages.markImportFailed': messages.markImportFailed,
    'messages.markImported': messages.markImported,
    'messages.markAcknowledged': messages.markAcknowledged,
    'retention.dropBodies': retention.dropBodies,
    'retention.pruneEvents': retention.pruneEvents,
    'retention.pruneDeadEvents': retention.pruneDeadEvents,
    'retention.forgetEventIds': retention.forgetEventIds,
    'retention.pruneMessages': retention.pruneMessages,
    'retention.pruneNotices': retention.pruneNotices,
    'retention.pruneSubmissions': retention.pruneSubmissions,
    'retention.reclaim': retention.reclaim,
    'sinkOutbox.claimDue': sinkOutbox.claimDue,
    'sinkOutbox.markDelivered': sinkOutbox.markDelivered,
    'sinkOutbox.markFailed': sinkOutbox.markFailed,
    'sinkOutbox.pruneDelivered': sinkOutbox.pruneDelivered,
    'submissions.add': submissions.add,
    'submissions.claimDue': submissions.claimDue,
    'submissions.markSending': submissions.markSending,
    'submissions.markSubmitted': submissions.markSubmitted,
    'submissions.markRefused': submissions.markRefused,
    'submissions.markRetry': submissions.markRetry,
    'submissions.linkCreated': submissions.linkCreated,
    'health.touch': (now: number): void => {
      touchHealth.run(now);
    },
  };
}

export type WriteOperations = ReturnType<typeof createWriteOperations>;
export type WriteOperation = keyof WriteOperations;

/**
 * The writes that must survive a power loss once their call resolves: the webhook inbox (the
 * 204 promises it), the import records (they decide whether an invoice is imported again),
 * an operator's replay, the readiness probe (it proves an fsync works), and the submission
 * outbox's record of an invoice and of each attempt (a power loss that undid "sending" would
 * let the invoice go out again without a lookup first). A batch holding one
 * commits with synchronous=FULL, an fsync of the WAL. Every other write (claims, settlements,
 * status bookkeeping, the status sink's outbox) commits with synchronous=NORMAL: in WAL mode that still survives the
 * process being killed, and the next FULL commit's fsync makes it durable too; what a power
 * loss could undo of it is redone from the inbox (an event found in processing again is simply
 * handled again, and its import record tells that it was imported). A dead event closed by an
 * acknowledgement (events.closeDead) that a power loss reopens is dead again: replaying it
 * acknowledges again, which the service accepts, and closes it for good.
 */
export const DURABLE_OPERATIONS: ReadonlySet<WriteOperation> = new Set<WriteOperation>([
  'events.insert',
  'events.replay',
  'messages.markImportStarted',
  'messages.markImported',
  'submissions.add',
  'submissions.markSending',
  'health.touch',
]);

/**
 * The writes that run alone, outside the group transaction, after it: each opens and commits a
 * transaction of its own and then checkpoints what it wrote, which cannot happen inside a
 * transaction (sqlite-retention.ts says why it must). Retention's batches: none is durable
 * (a power loss undoes a whole batch, which the next run does again), and none needs to share a
 * commit, since one is sent at a time.
 */
export const STANDALONE_OPERATIONS: ReadonlySet<WriteOperation> = new Set<WriteOperation>([
  'retention.dropBodies',
  'retention.pruneEvents',
  'retention.pruneDeadEvents',
  'retention.forgetEventIds',
  'retention.pruneMessages',
  'retention.pruneNotices',
  'retention.pruneSubmissions',
  'retention.reclaim',
]);

export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
