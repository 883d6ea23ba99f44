/**
 * The writer connection's `PRAGMA synchronous`, switched per batch (writer-thread.ts): FULL
 * for a batch that must be durable when answered, NORMAL otherwise (sqlite-writes.ts,
 * DURABLE_OPERATIONS).
 *
 * SQLite applies `PRAGMA synchronous = <level>` while it compiles the statement, not when the
 * statement runs (pragma.c sets the level as it parses; the program it leaves does nothing). So
 * a prepared pragma run again changes nothing, and preparing one is itself the change: the
 * writer once prepared both levels up front, which left NORMAL in force for every batch, and
 * webhooks were answered 204 before their commit reached the disk. Each change is therefore
 * compiled anew (a few microseconds, about every other batch), and the switch starts from the
 * level the connection reports, not from an assumption.
 */
import type Database from 'better-sqlite3';

const FULL = 2;

export function createSynchronousSwitch(db: Database.Database): (full: boolean) => void {
  let full = (db.pragma('synchronous', { simple: true }) as number) >= FULL;
  return (wanted) => {
    if (wanted === full) return;
    db.exec(`PRAGMA synchronous = ${wanted ? 'FULL' : 'NORMAL'}`);
    full = wanted;
  };
}
