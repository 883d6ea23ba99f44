/**
 * Upgrading a store that holds messages and a dead event to migration 009 (both stores): an
 * imported side counts one import attempt, a side never imported none, nobody's import error
 * is made up, and the dead event stays dead until an acknowledgement closes it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../../src/consumer/store/postgres/pg-store.ts';
import { openSqliteStore } from '../../../src/consumer/store/sqlite/sqlite-store.ts';
import type { Store } from '../../../src/consumer/store/store.ts';
import { createTestDatabase, describeWithPostgres } from '../../support/postgres.ts';
import { newEvent } from '../../support/sqlite.ts';
import { oldPostgres, oldSqlite } from './old-schema.ts';

const NOW = 1_800_000_000_000;
const dead = newEvent({ messageId: 'waiting', action: 'deliveryNotified' });

/**
 * The old rows, as [sql, values] with positional `?` (SQLite) turned into `$n` for PostgreSQL:
 * a side imported and acknowledged, a side whose import never started, the dead event.
 */
const OLD_ROWS: Array<[string, unknown[]]> = [
  [
    `INSERT INTO messages (message_id, transfer, import_started_at, imported_at, import_location,
                           acknowledged_at, acknowledgement, last_event_at, created_at, updated_at)
     VALUES (?, 'inbound', 10, 20, ?, 30, 'delivered', 1, 1, 1)`,
    ['imported', 'erp:INV-7'],
  ],
  [
    `INSERT INTO messages (message_id, transfer, last_event_at, created_at, updated_at)
     VALUES (?, 'inbound', 1, 1, 1)`,
    ['waiting'],
  ],
  [
    `INSERT INTO events (event_id, action, transfer, message_id, party, occurred_at, test, body,
                         received_at, state, attempts, next_attempt_at, last_error, updated_at)
     VALUES (?, ?, 'inbound', ?, ?, ?, ?, ?, ?, 'dead', 10, ?, ?, ?)`,
    [
      dead.eventId,
      dead.action,
      dead.messageId,
      dead.party,
      dead.occurredAt,
      false,
      Buffer.from('{}'),
      dead.receivedAt,
      dead.receivedAt,
      'Error: ERP down',
      dead.receivedAt,
    ],
  ],
];

async function expectUpgraded(store: Store) {
  expect(await store.messages.get({ messageId: 'imported', transfer: 'inbound' })).toMatchObject({
    importAttempts: 1,
    importError: null,
    importLocation: 'erp:INV-7',
    acknowledgement: 'delivered',
  });
  const waiting = { messageId: 'waiting', transfer: 'inbound' as const };
  expect(await store.messages.get(waiting)).toMatchObject({ importAttempts: 0, importError: null });
  await store.messages.markImportStarted(waiting, NOW);
  expect((await store.messages.get(waiting))?.importAttempts).toBe(1);

  expect(await store.events.get(dead.eventId)).toMatchObject({
    state: 'dead',
    lastError: 'Error: ERP down',
    resolution: null,
  });
  expect((await store.events.countOpen()).dead).toBe(1);
  const closed = await store.events.closeDead({
    messageId: 'waiting',
    transfer: 'inbound',
    action: 'deliveryNotified',
    resolution: 'closed: message acknowledged (delivered) by reconciliation',
    now: NOW,
  });
  expect(closed).toEqual([dead.eventId]);
  expect((await store.events.countOpen()).dead).toBe(0);
}

describe('migration 009 on an existing SQLite file', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('counts the imports made before it and closes an old dead event', async () => {
    dir = mkdtempSync(join(tmpdir(), 'import-record-'));
    const path = join(dir, 'consumer.db');
    const db = oldSqlite(path, 8);
    for (const [sql, values] of OLD_ROWS) {
      db.prepare(sql).run(...values.map((v) => (typeof v === 'boolean' ? Number(v) : v)));
    }
    db.close();

    const store = await openSqliteStore(path);
    try {
      await expectUpgraded(store);
    } finally {
      await store.close();
    }
  });
});

describeWithPostgres('migration 009 on an existing PostgreSQL database', () => {
  it('counts the imports made before it and closes an old dead event', async () => {
    const database = await createTestDatabase();
    const client = await oldPostgres(database.url, 4);
    try {
      for (const [sql, values] of OLD_ROWS) {
        let n = 0;
        await client.query(
          sql.replace(/\?/g, () => `$${++n}`),
          values,
        );
      }
    } finally {
      await client.end();
    }
    const store = await openPostgresStore(database.url);
    try {
      await expectUpgraded(store);
    } finally {
      await store.close();
      await database.drop();
    }
  });
});
