/**
 * The SQLite writer: a worker thread that owns the database's write connection, so that no
 * commit, fsync or wait for another process's lock ever runs on the main thread's event loop.
 *
 * Pipelined group commit: calls arrive as messages; the thread takes the first one and every
 * other already queued (receiveMessageOnPort), runs them in one IMMEDIATE transaction, each in
 * a savepoint of its own, and answers all of them after the COMMIT (synchronous=FULL: durable
 * on disk). While it commits one batch, the main thread keeps answering requests and the next
 * batch queues up. A call that throws is rolled back to its savepoint and answered with its
 * error; its neighbours still commit. If BEGIN or COMMIT fails (another process holds the lock
 * past busy_timeout, a full disk), every call of the batch gets that error: none was stored.
 * Nothing is ever answered before the COMMIT that makes it durable has returned.
 */
import { type MessagePort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { migrate } from './migrate.ts';
import {
  createWriteOperations,
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
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
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

function serve(db: Database.Database, operations: WriteOperations, batch: WriterRequest[]) {
  const calls = batch.filter((request) => request.type === 'call');
  const results: Extract<WriterReply, { type: 'results' }>['results'] = [];
  if (calls.length > 0) {
    try {
      db.transaction(() => {
        for (const call of calls) {
          try {
            const run = operations[call.op as WriteOperation] as (...args: unknown[]) => unknown;
            const value = db.transaction(() => run(...call.args))();
            results.push({ id: call.id, ok: true, value });
          } catch (error) {
            results.push({ id: call.id, ok: false, error: serializeError(error) });
          }
        }
      }).immediate();
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      const failure = serializeError(error);
      results.length = 0;
      for (const call of calls) results.push({ id: call.id, ok: false, error: failure });
    }
    port.postMessage({ type: 'results', results } satisfies WriterReply);
  }
  if (batch.some((request) => request.type === 'close')) {
    db.close();
    // The main thread ends this thread once it has this message; closing the port here could
    // drop it.
    port.postMessage({ type: 'closed' } satisfies WriterReply);
  }
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
