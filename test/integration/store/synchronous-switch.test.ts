/**
 * The writer's per-batch `PRAGMA synchronous` (synchronous-switch.ts), on a real SQLite file in
 * WAL mode: FULL whenever a batch must be durable when answered (a webhook, an import record),
 * read back from the connection itself.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { createSynchronousSwitch } from '../../../src/consumer/store/sqlite/synchronous-switch.ts';
import { testFolder } from '../../support/test-folder.ts';

const NORMAL = 1;
const FULL = 2;

let db: Database.Database | undefined;
afterEach(() => db?.close());

function openWal(): Database.Database {
  db = new Database(join(testFolder('synchronous-'), 'writer.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  return db;
}

const level = (connection: Database.Database) =>
  connection.pragma('synchronous', { simple: true }) as number;

it('keeps FULL in force from the start, and follows every switch', () => {
  const connection = openWal();
  const setFull = createSynchronousSwitch(connection);
  expect(level(connection)).toBe(FULL);

  setFull(true);
  expect(level(connection)).toBe(FULL);
  setFull(false);
  expect(level(connection)).toBe(NORMAL);
  setFull(false);
  expect(level(connection)).toBe(NORMAL);
  setFull(true);
  expect(level(connection)).toBe(FULL);
});

it('starts from the level the connection reports, not from an assumption', () => {
  const connection = openWal();
  connection.pragma('synchronous = NORMAL');
  const setFull = createSynchronousSwitch(connection);

  setFull(true);
  expect(level(connection)).toBe(FULL);
});

it('is needed: SQLite sets the level when a pragma is compiled, and running it again does nothing', () => {
  // Why the switch compiles each change: the writer once prepared both pragmas up front, and
  // left NORMAL (the last one prepared) in force for every durable batch.
  const connection = openWal();
  const normal = connection.prepare('PRAGMA synchronous = NORMAL');
  expect(level(connection)).toBe(NORMAL);
  connection.exec('PRAGMA synchronous = FULL');
  normal.run();
  expect(level(connection)).toBe(FULL);
});
