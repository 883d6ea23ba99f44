/**
 * `npm run copy-to-postgres`: a SQLite store with history is moved to PostgreSQL; what it knew
 * survives (dedupe, import records, status watermarks) and a second run changes nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/consumer/store/postgres/pg-store.ts';
import { openSqliteStore } from '../../src/consumer/store/sqlite/sqlite-store.ts';
import {
  createTestDatabase,
  describeWithPostgres,
  type TestDatabase,
} from '../support/postgres.ts';
import { runScript } from '../support/processes.ts';
import { newEvent } from '../support/sqlite.ts';

const SCRIPT = join(import.meta.dirname, '../../scripts/copy-to-postgres.ts');
const NOW = 1_800_000_000_000;

describeWithPostgres('npm run copy-to-postgres', () => {
  let dir: string;
  let database: TestDatabase;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'copy-'));
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('moves the inbox, the message views and the status history; runs again harmlessly', async () => {
    const path = join(dir, 'consumer.db');
    const sqlite = await openSqliteStore(path);
    const done = newEvent({ messageId: 'm-1' });
    const inHand = newEvent({ messageId: 'm-2' });
    await sqlite.events.insert(done);
    await sqlite.events.insert(inHand);
    const claimed = await sqlite.events.claimDue({
      now: NOW,
      limit: 2,
      leaseMs: 60_000,
      holder: 'old',
    });
    const first = claimed.find((e) => e.eventId === done.eventId);
    if (first === undefined) throw new Error('not claimed');
    await sqlite.events.settle(first, { state: 'done' }, NOW);
    const key = { messageId: 'm-1', transfer: 'inbound' as const };
    await sqlite.messages.applyStatus(
      key,
      { kind: 'delivery', value: 'delivered', at: 42, source: 'fetch' },
      NOW,
    );
    await sqlite.messages.markImportStarted(key, NOW);
    await sqlite.messages.markImportStarted(key, NOW);
    await sqlite.messages.markImported(key, '/docs/m-1', NOW);
    await sqlite.messages.recordStatusChange(
      {
        ...key,
        eventId: 'status-1',
        kind: 'delivery',
        formerValue: 'pendingdelivery',
        newValue: 'delivered',
        occurredAt: 42,
        properties: { errorMessage: 'none' },
        validationResults: [{ type: 'warning' }],
        outcome: 'applied',
      },
      NOW,
    );
    await sqlite.close();

    const run = () =>
      runScript(SCRIPT, {
        cwd: dir,
        args: ['--from', `sqlite:${path}`, '--to', database.url],
      });
    const copied = await run();
    expect(copied.code, copied.output).toBe(0);
    expect(copied.output).toContain('events: 2 read, 2 copied, 0 already there');
    const second = await run();
    expect(second.code, second.output).toBe(0);
    expect(second.output).toContain('events: 2 read, 0 copied, 2 already there');

    const pg = await openPostgresStore(database.url);
    try {
      // The old eventId is a duplicate on PostgreSQL too.
      expect(await pg.events.insert(done)).toBe('duplicate');
      expect(await pg.events.get(done.eventId)).toMatchObject({ state: 'done', body: done.body });
      // The event that was in processing is due again.
      expect(await pg.events.get(inHand.eventId)).toMatchObject({ state: 'pending' });
      expect(await pg.messages.get(key)).toMatchObject({
        deliveryStatus: 'delivered',
        deliveryAt: 42,
        deliveryConfirmed: true,
        importLocation: '/docs/m-1',
        importAttempts: 2,
      });
      expect(await pg.messages.statusChanges(key)).toEqual([
        expect.objectContaining({ eventId: 'status-1', properties: { errorMessage: 'none' } }),
      ]);
    } finally {
      await pg.close();
    }
  });

  it('says how to call it', async () => {
    const run = await runScript(SCRIPT, { cwd: dir, args: [] });
    expect(run.code).toBe(2);
    expect(run.output).toContain('usage: npm run copy-to-postgres');
  });
});
