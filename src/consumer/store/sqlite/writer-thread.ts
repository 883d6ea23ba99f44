/**
 * The SQLite writer: a worker thread that owns the database's write connection, so that no
 * commit, fsync or wait for another process's lock ever runs on the main thread's event loop.
 *
 * Pipelined group commit: calls arrive as messages, each holding one or more calls (writer.ts
 * says when the main thread sends); the thread takes the first message and every other
 * already queued (receiveMessageOnPort), runs all their calls in one IMMEDIATE transaction and
 * answers all of them, in one message, after the COMMIT. A batch holding a durable call (DURABLE_OPERATIONS in
 * sqlite-writes.ts: a webhook, an import record) commits with synchronous=FULL, durable on disk
 * before any answer; the others with NORMAL. While it commits one batch, the main thread keeps
 * answering requests and the next batch queues up.
 *
 * A call that throws must not take its neighbours down, nor leave half of itself written. The
 * batch first runs plainly (no savepoints: they cost a third of a batch's time); if any call
 * throws, the whole batch is rolled back and run again with a savepoint per call, so the
 * failing call is undone alone and answered with its error while the others commit (and with
 * it the calls that follow it, `after`: writer.ts, callAfter). If BEGIN
 * or COMMIT fails (another process holds the lock past busy_timeout, a full disk), every call
 * of the batch gets that error: none was stored. Nothing is ever answered before the COMMIT
 * that makes it durable has returned.
 *
 * Retention's batches (STANDALONE_OPERATIONS) are the exception: each runs alone after the
 * group, committing a transaction of its own and then checkpointing it, which no transaction
 * can contain; a batch that throws has rolled itself back and is answered with its error.
 */
import { type MessagePort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import {
  createWriteOperations,
  DURABLE_OPERATIONS,
  STANDALONE_OPERATIONS,
  type WriteOperation,
  type WriteOperations,
} from './sqlite-writes.ts';
import { createSynchronousSwitch } from './synchronous-switch.ts';
import { openWriterDatabase } from './writer-database.ts';
import type { WriterCall, WriterReply, WriterRequest } from './writer-protocol.ts';
import { type SerializedError, serializeError } from './writer-protocol.ts';

const { path, port } = workerData as { path: string; port: MessagePort };

/** The open connection, its operations, and the switch of its synchronous setting. */
interface Writer {
  db: Database.Database;
  operations: WriteOperations;
  setSynchronous: (full: boolean) => void;
}

function start(): Writer | undefined {
  try {
    const db = openWriterDatabase(path);
    const operations = createWriteOperations(db);
    port.postMessage({ type: 'ready' } satisfies WriterReply);
    return { db, operations, setSynchronous: createSynchronousSwitch(db) };
  } catch (error) {
    port.postMessage({ type: 'failed', error: serializeError(error) } satisfies WriterReply);
    port.close();
    return undefined;
  }
}

type Results = Extract<WriterReply, { type: 'results' }>['results'];

/** Thrown out of the plain run to roll the whole batch back. */
class CallFailed extends Error {}

function serve({ db, operations, setSynchronous }: Writer, batch: WriterRequest[]) {
  const calls = batch.flatMap((request) => (request.type === 'calls' ? request.calls : []));
  const alone = (call: WriterCall) => STANDALONE_OPERATIONS.has(call.op as WriteOperation);
  const run = (call: WriterCall) =>
    (operations[call.op as WriteOperation] as (...args: unknown[]) => unknown)(...call.args);
  const grouped = calls.filter((call) => !alone(call));
  if (grouped.length > 0) {
    setSynchronous(grouped.some((call) => DURABLE_OPERATIONS.has(call.op as WriteOperation)));
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
    setSynchronous(false);
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
  calls: WriterCall[],
  run: (call: WriterCall) => unknown,
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

/**
 * The batch again, each call in a savepoint: a failing call is undone and answered alone, with
 * the calls that follow it (`after`), which are not run and get its error.
 */
function commitWithSavepoints(
  db: Database.Database,
  calls: WriterCall[],
  run: (call: WriterCall) => unknown,
): Results {
  const failed = new Map<number, SerializedError>();
  return db
    .transaction(() =>
      calls.map((call) => {
        const blocked = call.after?.map((id) => failed.get(id)).find((e) => e !== undefined);
        try {
          if (blocked !== undefined) throw blocked;
          return { id: call.id, ok: true as const, value: db.transaction(() => run(call))() };
        } catch (error) {
          const failure = blocked ?? serializeError(error);
          failed.set(call.id, failure);
          return { id: call.id, ok: false as const, error: failure };
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
    serve(started, batch);
  });
}
