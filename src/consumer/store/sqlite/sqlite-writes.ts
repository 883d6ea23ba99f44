/**
 * Every write the SQLite store makes, by name: what the writer thread runs (writer-thread.ts)
 * and what the main thread may ask for (writer.ts). One name, one atomic call.
 */
import type Database from 'better-sqlite3';
import type { NewEvent } from '../store.ts';
import { claimWrites } from './sqlite-claims.ts';
import { eventWrites } from './sqlite-events.ts';
import { messageWrites } from './sqlite-messages.ts';

export function createWriteOperations(db: Database.Database) {
  const events = eventWrites(db);
  const claims = claimWrites(db);
  const messages = messageWrites(db);
  const touchHealth = db.prepare<[number]>('UPDATE health SET checked_at = ? WHERE id = 1');
  return {
    // A Buffer crosses to this thread as a plain Uint8Array; SQLite binds only Buffers.
    'events.insert': (event: NewEvent) => events.insert({ ...event, body: asBuffer(event.body) }),
    'events.claimDue': events.claimDue,
    'events.settle': events.settle,
    'events.replay': events.replay,
    'claims.acquire': claims.acquire,
    'claims.renew': claims.renew,
    'claims.release': claims.release,
    'claims.releaseHolder': claims.releaseHolder,
    'messages.recordSnapshot': messages.recordSnapshot,
    'messages.applyStatus': messages.applyStatus,
    'messages.recordStatusChange': messages.recordStatusChange,
    'messages.markImportStarted': messages.markImportStarted,
    'messages.markImported': messages.markImported,
    'messages.markAcknowledged': messages.markAcknowledged,
    'health.touch': (now: number): void => {
      touchHealth.run(now);
    },
  };
}

export type WriteOperations = ReturnType<typeof createWriteOperations>;
export type WriteOperation = keyof WriteOperations;

export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
