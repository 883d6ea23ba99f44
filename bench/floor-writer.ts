/**
 * The writer thread of the floor server (floor-server.ts): the consumer's inbox file as its
 * writer thread opens it (store/sqlite/writer-thread.ts: WAL, synchronous=FULL, its page cache,
 * its migrations) and the consumer's own insert statement, every row queued since the last
 * commit in one transaction. Nothing else: no batching policy, no savepoints, no error answers
 * beyond the thread's end.
 */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { NewEvent } from '../src/consumer/store/events.ts';
import { EVENT_SQL } from '../src/consumer/store/sqlite/events-queries.ts';
import { migrate } from '../src/consumer/store/sqlite/migrate.ts';
import { PAGE_CACHE_PRAGMA } from '../src/consumer/store/sqlite/page-cache.ts';

export type FloorRow = NewEvent & { testInt: number };
export type FloorBatch = Array<{ id: number; row: FloorRow }>;

const port = parentPort;
if (port === null) throw new Error('floor-writer.ts runs as a worker thread');
const db = new Database((workerData as { path: string }).path);
db.pragma('auto_vacuum = INCREMENTAL');
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma(PAGE_CACHE_PRAGMA);
migrate(db);
const insert = db.prepare<FloorRow>(EVENT_SQL.insert);
const insertAll = db.transaction((batch: FloorBatch) => {
  for (const { row } of batch) insert.run(row);
});

port.on('message', (first: FloorBatch | 'close') => {
  if (first === 'close') {
    db.close();
    port.close();
    return;
  }
  const batch = [...first];
  for (let more = receiveMessageOnPort(port); more; more = receiveMessageOnPort(port)) {
    batch.push(...(more.message as FloorBatch));
  }
  insertAll(batch);
  port.postMessage(batch.map(({ id }) => id));
});
