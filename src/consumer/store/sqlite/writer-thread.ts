/**
 * The SQLite writer: a worker thread that owns the database's write connection, so that no
 * commit, fsync or wait for another process's lock ever runs on the main thread's event loop.
 *
 * Pipelined group commit: calls arrive as messages; the thread takes the first one and every
 * other already queued (receiveMessageOnPort), runs them in one IMMEDIATE transaction and
 * answers all of them after the COMMIT. A batch holding a durable call (DURABLE_OPERATIONS in
 * sqlite-writes.ts: a webhook, an import record) commits with synchronous=FULL, durable on disk
 * before any answer; the others with NORMAL. While it commits one batch, the main thread keeps
 * answering requests and the next batch queues up.
 *
 * A call that throws must not take its neighbours down, nor leave half of itself written. The
 * batch first runs plainly (no savepoints: they cost a third of a batch's time); if any call
 * throws, the whole batch is rolled back and run again with a savepoint per call, so the
 * failing call is undone alone and answered with its error while the others commit. If BEGIN
 * or COMMIT fails (another process holds the lock past busy_timeout, a full disk), every call
 * of the batch gets that error: none was stored. Nothing is ever answered before the COMMIT
 * that makes it durable has returned.
 *
 * Retention's batches (STANDALONE_OPERATIONS) are the exception: each runs alone after the
 * group, committing a transaction of its own and then checkpointing it, which no transaction
 * can contain; a batch that throws has rolled itself back and is answered with its error.
 */
import { type MessagePort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { migrate } from './migrate.ts';
import { PAGE_CACHE_PRAGMA } from './page-cache.ts';
import {
  createWriteOperations,
  DURABLE_OPERATIONS,
  STANDALONE_OPERATIONS,
  type WriteOperation,
  type WriteOperations,
} from './sqlite-writes.ts';
import type { WriterReply, WriterRequest } from './writer-protocol.ts';
import { serializeError } from './writer-protocol.ts';

const { path, port } = workerData as { path: string; port: MessagePort };

function open(): Database.Database {
  const db = new Database(path);
  // Set before anything that can wait for another process's lock.
  db.pragma('busy_timeout = 5000');
  // A new file gives freed pages back to the file system on request (retention's reclaim
  // step); this must be set before the first table and before WAL mode.
  const empty = db.prepare('SELECT 1 FROM sqlite_schema LIMIT 1').get() === undefined;
  if (empty) db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma(PAGE_CACHE_PRAGMA);
  migrate(db);
  return db;
}

function start(): { db: Database.Database; operations: WriteOperations } | undefined {
  try {
    const db = open();
    const operations = createWriteOperations(db);
    port.postMessage({ type: 'ready' } satisfies WriterReply);
    return { db, operations };
  } catch (error) {
    port.postMessage({ type: 'failed', error: serializeError(error) } satisfies WriterReply);
    port.close();
    return undefined;
  }
}

type Results = Extract<WriterReply, { type: 'results' }>['results'];
type Call = Extract<WriterRequest, { type: 'call' }>;

let synchronousFull = true;
/** FULL for a batch that must be durable when answered, NORMAL otherwise (see the header). */
function setSynchronous(db: Database.Database, full: boolean) {
  if (full === synchronousFull) return;
  db.pragma(`synchronous = ${full ? 'FULL' : 'NORMAL'}`);
  synchronousFull = full;
}

/** Thrown out of the plain run to roll the whole batch back. */
class CallFailed extends Error {}

function serve(db: Database.Database, operations: WriteOperations, batch: WriterRequest[]) {
  const calls = batch.filter((request) => request.type === 'call');
  const alone = (call: Call) => STANDALONE_OPERATIONS.has(call.op as WriteOperation);
  const run = (call: Call) =>
    (operations[call.op as WriteOperation] as (...args: unknown[]) => unknown)(...call.args);
  const grouped = calls.filter((call) => !alone(call));
  if (grouped.length > 0) {
    setSynchronous(
      db,
      grouped.some((call) => DURABLE_OPERATIONS.has(call.op as WriteOperation)),
    );
    let results: Results;
    try {
      results = commitPlainly(db, grouped, run) ?? commitWithSavepoints(db, grouped, run);
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      const failure = serializeError(error);
      results = grouped.map((call) => ({ id: call.id, ok: false, error: failure }));
    }
    port.postMessage({ type: 'results', results } satisfies WriterReply);
  }
  // After the group, so the webhooks queued with it are answered first; each commits itself.
  for (const call of calls.filter(alone)) {
    setSynchronous(db, false);
    let result: Results[number];
    try {
      result = { id: call.id, ok: true, value: run(call) };
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      result = { id: call.id, ok: false, error: serializeError(error) };
    }
    port.postMessage({ type: 'results', results: [result] } satisfies WriterReply);
  }
  if (batch.some((request) => request.type === 'close')) {
    db.close();
    // The main thread ends this thread once it has this message; closing the port here could
    // drop it.
    port.postMessage({ type: 'closed' } satisfies WriterReply);
  }
}

/** The batch in one transaction; undefined (all rolled back) when any call threw. */
function commitPlainly(
  db: Database.Database,
  calls: Call[],
  run: (call: Call) => unknown,
): Results | undefined {
  try {
    return db
      .transaction(() =>
        calls.map((call) => {
          try {
            return { id: call.id, ok: true as const, value: run(call) };
          } catch {
            throw new CallFailed();
          }
        }),
      )
      .immediate();
  } catch (error) {
    if (error instanceof CallFailed) return undefined;
    throw error;
  }
}

/** The batch again, each call in a savepoint: a failing call is undone and answered alone. */
function commitWithSavepoints(
  db: Database.Database,
  calls: Call[],
  run: (call: Call) => unknown,
): Results {
  return db
    .transaction(() =>
      calls.map((call) => {
        try {
          return { id: call.id, ok: true as const, value: db.transaction(() => run(call))() };
        } catch (error) {
          return { id: call.id, ok: false as const, error: serializeError(error) };
        }
      }),
    )
    .immediate();
}

const started = start();
if (started !== undefined) {
  port.on('message', (first: WriterRequest) => {
    const batch = [first];
    for (
      let next = receiveMessageOnPort(port);
      next !== undefined;
      next = receiveMessageOnPort(port)
    ) {
      batch.push(next.message as WriterRequest);
    }
    serve(started.db, started.operations, batch);
  });
}
