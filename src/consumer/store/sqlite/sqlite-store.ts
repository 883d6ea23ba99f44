/**
 * The embedded store: one SQLite file in WAL mode, with two connections.
 *
 * - Writes go to the writer thread (writer-thread.ts), which owns the write connection and
 *   commits with synchronous=FULL, many calls per transaction (pipelined group commit). So an
 *   fsync, a busy wait for another process's lock, or a long transaction never holds the event
 *   loop: it keeps reading, verifying and answering requests meanwhile. A call resolves only
 *   after the COMMIT holding it has returned, so the 204 of a webhook always follows a durable
 *   write; that is also why it cannot be acknowledged earlier: until then, a crash loses it.
 * - Reads use a connection on the main thread. In WAL mode a reader never waits for a writer;
 *   it sees every transaction committed before the read started, so what a resolved write
 *   wrote is visible to the next read.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { makeFolderSync } from '../../files/make-folder.ts';
import { activeTraceParent } from '../../tracing/trace-parent.ts';
import type { ClaimStore } from '../claims.ts';
import {
  type CommitDeadline,
  commitDeadlineOf,
  createCommitDeadline,
  insertWithDeadline,
} from '../deadline.ts';
import type { EventStore } from '../events.ts';
import type { MessageStore } from '../messages.ts';
import type { RetentionStore } from '../retention.ts';
import type { SinkOutboxStore } from '../sink-outbox.ts';
import type { Store } from '../store.ts';
import type { SubmissionStore } from '../submissions.ts';
import { PAGE_CACHE_PRAGMA } from './page-cache.ts';
import { claimReads } from './sqlite-claims.ts';
import { eventReads } from './sqlite-events.ts';
import { messageReads } from './sqlite-messages.ts';
import { sinkOutboxReads } from './sqlite-sink-outbox.ts';
import { submissionReads } from './sqlite-submissions.ts';
import { asBuffer } from './sqlite-writes.ts';
import { type SqliteWriter, startWriter } from './writer.ts';

export interface SqliteStore extends Store {
  readonly kind: 'sqlite';
  /** The main thread's connection: for reads, and for tests that look at rows directly. */
  readonly db: Database.Database;
}

export interface SqliteStoreOptions {
  /**
   * How long a webhook insert or the readiness write may wait for its commit before it fails.
   * Another process holding the database's write lock (a long reconciliation, a backup, an
   * operator's sqlite3 shell) would otherwise keep a webhook waiting past the service's 5 s;
   * failing sooner answers 503 and the service retries. The write may still commit later: the
   * retry is then a duplicate, answered 204. @default STORE_COMMIT_DEADLINE_MS (2000:
   * settings/answer-budget.ts)
   */
  commitTimeoutMs?: number;
}

/**
 * Opens (creating and migrating if needed) the database at `path`. `:memory:` stands for a
 * private file in a temporary folder, removed at close: two connections cannot share an
 * in-memory database.
 */
export async function openSqliteStore(
  path: string,
  options: SqliteStoreOptions = {},
): Promise<SqliteStore> {
  const deadline = createCommitDeadline(commitDeadlineOf(options));
  const temporary = path === ':memory:' ? mkdtempSync(join(tmpdir(), 'consumer-db-')) : undefined;
  const file = temporary === undefined ? path : join(temporary, 'consumer.db');
  // Not mkdir's recursive option: on a read-only disk it says ENOENT, and the operator looks
  // for a missing folder (make-folder.ts).
  makeFolderSync(dirname(file));
  const writer = await startWriter(file);
  const db = new Database(file);
  db.pragma('busy_timeout = 5000');
  db.pragma(PAGE_CACHE_PRAGMA);

  return {
    kind: 'sqlite',
    db,
    events: eventStore(writer, eventReads(db), deadline),
    claims: claimStore(writer, claimReads(db)),
    messages: messageStore(writer, messageReads(db)),
    retention: retentionStore(writer),
    sinkOutbox: sinkOutboxStore(writer, sinkOutboxReads(db)),
    submissions: submissionStore(writer, submissionReads(db)),
    checkWritable: () => deadline(writer.call('health.touch', Date.now())),
    async close() {
      await writer.close();
      if (db.open) db.close();
      if (temporary !== undefined) rmSync(temporary, { recursive: true, force: true });
    },
  };
}

// Each concern: its writes are calls to the writer thread, its reads run on the main thread's
// connection.

function eventStore(
  writer: SqliteWriter,
  events: ReturnType<typeof eventReads>,
  deadline: CommitDeadline,
): EventStore {
  return {
    insert: insertWithDeadline((event) => writer.call('events.insert', event), deadline),
    get: async (eventId) => events.get(eventId),
    list: async (query) => events.list(query),
    countOpen: async () => events.countOpen(),
    oldestOpen: async () => events.oldestOpen(),
    async claimDue(request) {
      const claimed = await writer.call('events.claimDue', request);
      return claimed.map((event) => ({ ...event, body: asBuffer(event.body) }));
    },
    // Only what the settlement needs crosses to the writer, not the event's body.
    settle: (event, settlement, now, after = []) =>
      writer.callAfter(
        after,
        'events.settle',
        {
          occurredAt: event.occurredAt,
          eventId: event.eventId,
          messageId: event.messageId,
          claim: event.claim,
        },
        settlement,
        now,
      ),
    replay: (eventId, now) => writer.call('events.replay', eventId, now),
    closeDead: (closure) => writer.call('events.closeDead', closure),
  };
}

function claimStore(writer: SqliteWriter, claims: ReturnType<typeof claimReads>): ClaimStore {
  return {
    acquire: (messageId, request) => writer.call('claims.acquire', messageId, request),
    renew: (claim, request) => writer.call('claims.renew', claim, request),
    release: (claim) => writer.call('claims.release', claim),
    get: async (messageId) => claims.get(messageId),
    holders: async (now) => claims.holders(now),
    releaseHolder: (holder) => writer.call('claims.releaseHolder', holder),
  };
}

function messageStore(
  writer: SqliteWriter,
  messages: ReturnType<typeof messageReads>,
): MessageStore {
  return {
    get: async (key) => messages.get(key),
    listSides: async (messageId) => messages.listSides(messageId),
    recordSnapshot: (snapshot, now) =>
      writer.call('messages.recordSnapshot', snapshot, now, activeTraceParent()),
    applyStatus: (key, write, now) =>
      writer.call('messages.applyStatus', key, write, now, activeTraceParent()),
    recordStatusChange: (change, now) => writer.call('messages.recordStatusChange', change, now),
    statusChanges: async (key) => messages.statusChanges(key),
    transitionsAt: async (key, kind, at) => messages.transitionsAt(key, kind, at),
    markImportStarted: (key, now) => writer.call('messages.markImportStarted', key, now),
    markImportFailed: (key, error, now) =>
      writer.call('messages.markImportFailed', key, error, now),
    markImported: (key, location, now) => writer.call('messages.markImported', key, location, now),
    markAcknowledged: (key, acknowledgement, reason, now) =>
      writer.call('messages.markAcknowledged', key, acknowledgement, reason, now),
    listStale: async (before, limit) => messages.listStale(before, limit),
  };
}

function retentionStore(writer: SqliteWriter): RetentionStore {
  return {
    dropBodies: (before, bound) => writer.call('retention.dropBodies', before, bound),
    pruneEvents: (before, bound, options) =>
      writer.call('retention.pruneEvents', before, bound, options),
    pruneDeadEvents: (cutoffs, bound, options) =>
      writer.call('retention.pruneDeadEvents', cutoffs, bound, options),
    forgetEventIds: (before, bound) => writer.call('retention.forgetEventIds', before, bound),
    pruneMessages: (before, bound) => writer.call('retention.pruneMessages', before, bound),
    pruneNotices: (before, bound) => writer.call('retention.pruneNotices', before, bound),
    pruneSubmissions: (before, bound) => writer.call('retention.pruneSubmissions', before, bound),
    reclaim: (bound) => writer.call('retention.reclaim', bound),
  };
}

function sinkOutboxStore(
  writer: SqliteWriter,
  sinkOutbox: ReturnType<typeof sinkOutboxReads>,
): SinkOutboxStore {
  return {
    claimDue: (now, limit, leaseMs) => writer.call('sinkOutbox.claimDue', now, limit, leaseMs),
    markDelivered: (seqs, now) => writer.call('sinkOutbox.markDelivered', seqs, now),
    markFailed: (seq, error, nextAttemptAt, now) =>
      writer.call('sinkOutbox.markFailed', seq, error, nextAttemptAt, now),
    stats: async () => sinkOutbox.stats(),
    list: async (options) => sinkOutbox.list(options),
    pruneDelivered: (before, limit) => writer.call('sinkOutbox.pruneDelivered', before, limit),
  };
}

function submissionStore(
  writer: SqliteWriter,
  submissions: ReturnType<typeof submissionReads>,
): SubmissionStore {
  return {
    add: (submission, now) => writer.call('submissions.add', submission, now, activeTraceParent()),
    get: async (invoiceNo) => submissions.get(invoiceNo),
    list: async (options) => submissions.list(options),
    stats: async () => submissions.stats(),
    claimDue: (now, limit, leaseMs) => writer.call('submissions.claimDue', now, limit, leaseMs),
    markSending: (invoiceNo, now) => writer.call('submissions.markSending', invoiceNo, now),
    markSubmitted: (invoiceNo, messageId, resolvedBy, now) =>
      writer.call(
        'submissions.markSubmitted',
        invoiceNo,
        messageId,
        resolvedBy,
        now,
        activeTraceParent(),
      ),
    markRefused: (invoiceNo, reason, now) =>
      writer.call('submissions.markRefused', invoiceNo, reason, now, activeTraceParent()),
    markRetry: (invoiceNo, state, error, nextAttemptAt) =>
      writer.call('submissions.markRetry', invoiceNo, state, error, nextAttemptAt),
    linkCreated: (documentNo, messageId, timeReceived, slackMs, now) =>
      writer.call(
        'submissions.linkCreated',
        documentNo,
        messageId,
        timeReceived,
        slackMs,
        now,
        activeTraceParent(),
      ),
  };
}
