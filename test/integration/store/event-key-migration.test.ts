/**
 * Upgrading a store that holds events to the (occurredAt, eventId) inbox key (SQLite's
 * migration 008, PostgreSQL's 004): every event is kept as it was, still found by its eventId,
 * still a duplicate when redelivered, and the open one is still handled.
 */
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../../src/consumer/store/events.ts';
import type { Store } from '../../../src/consumer/store/store.ts';
import { describeWithPostgres } from '../../support/postgres.ts';
import { newEvent } from '../../support/sqlite.ts';
import { upgradeOldPostgres, upgradeOldSqlite } from './old-schema.ts';

const NOW = 1_800_000_000_000;

/** What the old schema held: one event pending, one done, one done whose body was dropped. */
const pending = newEvent();
const done = newEvent();
const dropped = newEvent();
const OLD_ROWS: Array<[NewEvent, string, string]> = [
  [pending, 'pending', '7b7d'],
  [done, 'done', '7b7d'],
  [dropped, 'done', ''],
];

/** One old row's values, in the order both inserts below name the columns. */
const OLD_COLUMNS =
  'event_id, action, transfer, message_id, party, occurred_at, body, received_at, state, ' +
  'next_attempt_at, updated_at';
const oldValues = ([e, state, body]: (typeof OLD_ROWS)[number]) => [
  e.eventId,
  e.action,
  e.transfer,
  e.messageId,
  e.party,
  e.occurredAt,
  Buffer.from(body, 'hex'),
  e.receivedAt,
  state,
  e.receivedAt,
  e.receivedAt,
];

/** The upgraded store as a user would notice it. */
async function expectUpgraded(store: Store) {
  for (const [event, state, body] of OLD_ROWS) {
    expect(await store.events.get(event.eventId)).toMatchObject({
      eventId: event.eventId,
      occurredAt: event.occurredAt,
      state,
      body: Buffer.from(body, 'hex'),
    });
    expect(await store.events.insert(event)).toBe('duplicate');
  }
  const { items } = await store.events.list({ limit: 10 });
  expect(items.map((event) => event.eventId)).toEqual(
    OLD_ROWS.map(([event]) => event.eventId).reverse(),
  );
  const [claimed] = await store.events.claimDue({ now: NOW, limit: 5, leaseMs: 1000, holder: 'w' });
  expect(claimed?.eventId).toBe(pending.eventId);
  if (claimed === undefined) throw new Error('nothing claimed');
  expect(await store.events.settle(claimed, { state: 'done' }, NOW)).toBe(true);
  expect(await store.events.replay(done.eventId, NOW)).toBe('replayed');
  expect(await store.events.replay(dropped.eventId, NOW)).toBe('body_dropped');
  expect(await store.events.insert(newEvent())).toBe('inserted');
}

describe('the (occurredAt, eventId) inbox key on an existing SQLite file', () => {
  it('migration 008 keeps every event, its rowid and its dedupe', async () => {
    await upgradeOldSqlite(
      7,
      (db) => {
        const insert = db.prepare(
          `INSERT INTO events (rowid, test, ${OLD_COLUMNS}) VALUES (?, 0, ${'?, '.repeat(10)}?)`,
        );
        OLD_ROWS.forEach((row, i) => {
          insert.run((i + 1) * 10, ...oldValues(row));
        });
      },
      async (store) => {
        expect(
          store.db.prepare('SELECT rowid, event_id FROM events ORDER BY rowid').raw().all(),
        ).toEqual(OLD_ROWS.map(([e], i) => [(i + 1) * 10, e.eventId]));
        await expectUpgraded(store);
      },
    );
  });
});

describeWithPostgres(
  'the (occurredAt, eventId) inbox key on an existing PostgreSQL database',
  () => {
    it('migration 004 keeps every event and its dedupe', async () => {
      await upgradeOldPostgres(
        3,
        async (client) => {
          for (const row of OLD_ROWS) {
            await client.query(
              `INSERT INTO events (test, ${OLD_COLUMNS})
               VALUES (false, ${Array.from({ length: 11 }, (_, i) => `$${i + 1}`).join(', ')})`,
              oldValues(row),
            );
          }
        },
        expectUpgraded,
      );
    });
  },
);
