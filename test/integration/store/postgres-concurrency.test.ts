/**
 * What only PostgreSQL can show: several processes on one database at the same moment. Each
 * "process" here is a store of its own (its own pool) on a shared database.
 */
import { join } from 'node:path';
import pg from 'pg';
import { request } from 'undici';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { ClaimedEvent } from '../../../src/consumer/store/events.ts';
import { startTestConsumer, TEST_SECRET, type TestConsumer } from '../../support/consumer.ts';
import {
  createTestDatabase,
  describeWithPostgres,
  POSTGRES_URL,
  type TestDatabase,
} from '../../support/postgres.ts';
import { runScript } from '../../support/processes.ts';
import { newEvent } from '../../support/sqlite.ts';
import { type DisposableStore, POSTGRES } from '../../support/stores.ts';
import { buildEnvelope, signedRequest } from '../../support/webhooks.ts';

const OPEN_ONCE = join(import.meta.dirname, '../../support/open-store-once.ts');

describeWithPostgres('PostgreSQL store, several processes at once', () => {
  let a: DisposableStore;
  let b: DisposableStore;
  beforeEach(async () => {
    a = await POSTGRES.open();
    b = await POSTGRES.openAnother(a);
  });
  afterEach(async () => {
    await b.dispose();
    await a.dispose();
  });

  it('two claimers racing take each event once, and never one message both at once', async () => {
    const NOW = Date.now();
    for (let m = 0; m < 40; m++) {
      for (let e = 0; e < 5; e++) {
        await a.events.insert(newEvent({ messageId: `m-${m}`, receivedAt: NOW - 1000 + e }));
      }
    }
    const handled: string[] = [];
    const inHand = new Map<string, string>();
    const work = async (store: DisposableStore, holder: string) => {
      for (;;) {
        const claimed: ClaimedEvent[] = await store.events.claimDue({
          now: NOW,
          limit: 4,
          leaseMs: 60_000,
          holder,
        });
        if (claimed.length === 0) {
          if ((await store.events.countOpen()).pending === 0) return;
          continue;
        }
        for (const event of claimed) {
          // No other holder may have this message in hand now.
          expect(inHand.get(event.messageId), event.messageId).toBeUndefined();
          inHand.set(event.messageId, holder);
        }
        await Promise.all(
          claimed.map(async (event) => {
            await new Promise((r) => setTimeout(r, 1));
            inHand.delete(event.messageId);
            expect(await store.events.settle(event, { state: 'done' }, NOW)).toBe(true);
            handled.push(event.eventId);
          }),
        );
      }
    };
    await Promise.all([work(a, 'replica-a'), work(b, 'replica-b')]);
    expect(handled).toHaveLength(200);
    expect(new Set(handled).size).toBe(200);
    expect(await a.events.countOpen()).toEqual({ pending: 0, processing: 0, dead: 0 });
    expect((await a.events.list({ state: 'done', limit: 1000 })).items.length).toBe(200);
  });

  it("takes over a claim whose lease ended; the old holder's outcome is refused", async () => {
    const NOW = Date.now();
    await a.events.insert(newEvent({ messageId: 'm-1' }));
    const [old] = await a.events.claimDue({ now: NOW, limit: 1, leaseMs: 1000, holder: 'a' });
    if (old === undefined) throw new Error('nothing claimed');
    expect(
      await b.events.claimDue({ now: NOW + 999, limit: 1, leaseMs: 1000, holder: 'b' }),
    ).toEqual([]);
    const [taken] = await b.events.claimDue({
      now: NOW + 1001,
      limit: 1,
      leaseMs: 1000,
      holder: 'b',
    });
    expect(taken?.attempts).toBe(2);
    expect(await a.events.settle(old, { state: 'done' }, NOW + 1002)).toBe(false);
    if (taken === undefined) throw new Error('not taken over');
    expect(await b.events.settle(taken, { state: 'done' }, NOW + 1003)).toBe(true);
  });
});

describeWithPostgres('PostgreSQL store, start-up and outages', () => {
  let database: TestDatabase;
  let consumer: TestConsumer | undefined;
  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await consumer?.stop();
    consumer = undefined;
    await database.drop();
  });

  it('three processes migrating a new database at once all succeed, each migration once', async () => {
    const runs = await Promise.all(
      Array.from({ length: 3 }, () =>
        runScript(OPEN_ONCE, { cwd: import.meta.dirname, args: [database.url] }),
      ),
    );
    for (const run of runs) expect(run.code, run.output).toBe(0);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query(
      'SELECT version, count(*)::int AS n FROM schema_migrations GROUP BY version',
    );
    await client.end();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.n === 1)).toBe(true);
  });

  it('answers 503 while the database is away, and 204 once it is back', async () => {
    consumer = await startTestConsumer({ DATABASE_URL: database.url });
    const post = async () => {
      const req = signedRequest(buildEnvelope(), { secrets: [TEST_SECRET] });
      const res = await request(consumer?.webhookUrl as string, {
        method: 'POST',
        body: req.body,
        headers: req.headers,
      });
      await res.body.text();
      return res.statusCode;
    };
    expect(await post()).toBe(204);

    const name = new URL(database.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    try {
      // The database goes away: no new connections, and those open are cut.
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1',
        [name],
      );
      expect(await post()).toBe(503);
      const ready = await request(`${consumer.url}/readyz`);
      await ready.body.text();
      expect(ready.statusCode).toBe(503);
    } finally {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    expect(await post()).toBe(204);
  });
});
