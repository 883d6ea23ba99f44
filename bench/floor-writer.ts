/**
 * The writer thread of the floor server (floor-server.ts): the consumer's inbox file opened as
 * its writer thread opens it (store/sqlite/writer-database.ts) and the consumer's own insert
 * (the writer's `events.insert` operation), every event queued since the last commit in one
 * transaction. Nothing else: no batching policy, no savepoints, no error answers beyond the
 * thread's end.
 */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import type { NewEvent } from '../src/consumer/store/events.ts';
import { createWriteOperations } from '../src/consumer/store/sqlite/sqlite-writes.ts';
import { openWriterDatabase } from '../src/consumer/store/sqlite/writer-database.ts';

export type FloorBatch = Array<{ id: number; event: NewEvent }>;

const port = parentPort;
if (port === null) throw new Error('floor-writer.ts runs as a worker thread');
const db = openWriterDatabase((workerData as { path: string }).path);
const insert = createWriteOperations(db)['events.insert'];
const insertAll = db.transaction((batch: FloorBatch) => {
  for (const { event } of batch) insert(event);
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
