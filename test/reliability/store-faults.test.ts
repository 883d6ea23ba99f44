/**
 * The store under the faults a deployment meets: many processes starting on a new file at once,
 * a database migrated by a newer version, another process holding the write lock, and a store
 * that refuses a worker's write for a while. Nothing is lost, nothing waits past the service's
 * patience, and each fault clears by itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/consumer/store/sqlite/sqlite-store.ts';
import { startTestConsumer, TEST_SECRET, type TestConsumer } from '../support/consumer.ts';
import { runScript } from '../support/processes.ts';
import { eventually } from '../support/sandbox.ts';
import { buildEnvelope, signedRequest } from '../support/webhooks.ts';

const OPEN_ONCE = join(import.meta.dirname, '../support/open-store-once.ts');

let dir: string | undefined;
let consumer: TestConsumer | undefined;
afterEach(async () => {
  await consumer?.stop();
  consumer = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function post(url: string, envelope = buildEnvelope()) {
  const req = signedRequest(envelope, { secrets: [TEST_SECRET] });
  const res = await request(url, { method: 'POST', body: req.body, headers: req.headers });
  await res.body.text();
  return { status: res.statusCode, eventId: envelope.eventId };
}

describe('the SQLite store under faults', () => {
  it('twenty processes starting at once on a new file all migrate it, once', async () => {
    dir = mkdtempSync(join(tmpdir(), 'concurrent-start-'));
    const path = join(dir, 'consumer.db');
    const runs = await Promise.all(
      Array.from({ length: 20 }, () => runScript(OPEN_ONCE, { cwd: dir as string, args: [path] })),
    );
    for (const run of runs) expect(run.code, run.output).toBe(0);
    const db = new Database(path, { readonly: true });
    const versions = db.prepare('SELECT version FROM schema_migrations').all();
    db.close();
    expect(versions.length).toBeGreaterThan(0);
    expect(new Set(versions.map((v) => (v as { version: number }).version)).size).toBe(
      versions.length,
    );
    // Twenty Node processes on two cores, beside the rest of the suite: their start-up alone
    // can pass the default 20 s; the race under test is not about time.
  }, 60_000);

  it('refuses a database migrated by a newer version, and says so', async () => {
    dir = mkdtempSync(join(tmpdir(), 'newer-'));
    const path = join(dir, 'consumer.db');
    const store = await openSqliteStore(path);
    store.db.prepare("INSERT INTO schema_migrations VALUES (999, '999_future.sql', 0)").run();
    await store.close();
    await expect(openSqliteStore(path)).rejects.toThrow(
      /migrated by a newer version of this program \(migration 999_future\.sql/,
    );
  });

  it('answers 503, not a late 204, while another process holds the write lock', async () => {
    // With its worker, so that readiness is about the store alone.
    consumer = await startTestConsumer({}, { startWorker: true });
    // An operator's sqlite3 shell with a write transaction open, in another connection.
    const other = new Database(join(consumer.dir, 'consumer.db'));
    other.exec('BEGIN IMMEDIATE');
    try {
      const locked = await post(consumer.webhookUrl);
      expect(locked.status).toBe(503);
      const health = await request(`${consumer.url}/healthz`);
      await health.body.text();
      expect(health.statusCode).toBe(200);
      const ready = await request(`${consumer.url}/readyz`);
      expect(ready.statusCode).toBe(503);
      expect(await ready.body.json()).toMatchObject({ failures: { store: expect.any(String) } });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    // The lock gone, both recover by themselves: readiness, and the service's next event.
    await eventually(async () => {
      const ready = await request(`${consumer?.url}/readyz`);
      await ready.body.text();
      return ready.statusCode === 200;
    }, 'readiness back');
    const retried = await post(consumer.webhookUrl);
    expect(retried.status).toBe(204);
    expect(await consumer.store.events.get(retried.eventId)).toBeDefined();
  });

  it('writes a worker outcome the store refused as soon as it takes writes again', async () => {
    // A lease far longer than the test: only a prompt retry can finish in time.
    consumer = await startTestConsumer({}, { startWorker: true, worker: { leaseMs: 600_000 } });
    consumer.store.db.exec(`CREATE TRIGGER full_disk BEFORE UPDATE OF state ON events
      WHEN NEW.state IN ('done', 'skipped')
      BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
    const { eventId } = await post(
      consumer.webhookUrl,
      buildEnvelope({ action: 'documentAdded' }), // unknown: skipped, settles with no API call
    );
    await eventually(
      async () => consumer?.logs.some((l) => l.msg === 'could not write the outcome; trying again'),
      'a refused outcome',
    );
    consumer.store.db.exec('DROP TRIGGER full_disk');
    await eventually(
      async () => (await consumer?.store.events.get(eventId))?.state === 'skipped' || undefined,
      'the outcome written',
    );
  });
});
