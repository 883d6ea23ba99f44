/**
 * Upgrading a store that holds messages and a dead event to migration 009 (both stores): an
 * imported side counts one import attempt, a side never imported none, nobody's import error
 * is made up, and the dead event stays dead until an acknowledgement closes it.
 */
import { expect } from 'vitest';
import type { Store } from '../../../src/consumer/store/store.ts';
import { newEvent } from '../../support/sqlite.ts';
import { describeUpgrade } from './old-schema.ts';

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

describeUpgrade('009', 'counts the imports made before it and closes an old dead event', {
  before: { sqlite: 8, postgres: 4 },
  rows: OLD_ROWS,
  check: expectUpgraded,
});
