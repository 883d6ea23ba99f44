/**
 * Retention on a consumer holding history (a real SQLite file, webhooks over real HTTP): a run
 * deletes what the default policy says and keeps what correctness needs (the dedupe record of
 * every eventId the service could still redeliver, the statuses and import records of messages
 * that may still change), gives the space back, and never holds up a webhook for long, because
 * each batch is one short transaction.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DAY_MS, DEFAULT_RETENTION } from '../../../src/consumer/retention/policy.ts';
import { createPruner, type PruneReport } from '../../../src/consumer/retention/pruner.ts';
import { startTestConsumer, TEST_SECRET, type TestConsumer } from '../../support/consumer.ts';
import { buildEnvelope, signedRequest } from '../../support/webhooks.ts';

/** A year and a half of history, one event per message, four per day of it per 100. */
const DAYS = 540;
const PER_DAY = 100;
const BODY = Buffer.alloc(1500, 'x');

const now = Date.now();
let consumer: TestConsumer;

/** Fills the file as a year and more of traffic would: finished events, final messages. */
function fillHistory() {
  const { db } = consumer.store;
  const event = db.prepare(`
    INSERT INTO events (event_id, action, transfer, message_id, party, occurred_at, test, body,
                        received_at, state, attempts, next_attempt_at, updated_at)
    VALUES (?, 'deliveryNotified', 'inbound', ?, '0192:999999999', '2026-01-01T00:00:00Z', 0,
            ?, ?, 'done', 1, 0, ?)`);
  const message = db.prepare(`
    INSERT INTO messages (message_id, transfer, delivery_status, delivery_at, imported_at,
                          import_location, acknowledged_at, acknowledgement, last_event_at,
                          created_at, updated_at)
    VALUES (?, 'inbound', 'delivered', ?, ?, ?, ?, 'delivered', ?, ?, ?)`);
  const change = db.prepare(`
    INSERT INTO status_changes (event_id, message_id, transfer, kind, former_value, new_value,
                                occurred_at, outcome, recorded_at)
    VALUES (?, ?, 'inbound', 'delivery', 'pendingdelivery', 'delivered', ?, 'applied', ?)`);
  db.transaction(() => {
    for (let day = DAYS; day > 0; day--) {
      for (let i = 0; i < PER_DAY; i++) {
        const at = now - day * DAY_MS + i;
        const id = `history-${day}-${i}`;
        event.run(id, id, BODY, at, at);
        change.run(id, id, at, at);
        message.run(id, at, at, `/documents/${id}`, at, at, at, at);
      }
    }
  })();
}

const count = (sql: string) => (consumer.store.db.prepare(sql).get() as { n: number }).n;

function fileBytes(): number {
  // What the database holds once the WAL is written back into it.
  consumer.store.db.pragma('wal_checkpoint(TRUNCATE)');
  return statSync(join(consumer.dir, 'consumer.db')).size;
}

async function sendWebhook(envelope = buildEnvelope()) {
  const { body, headers } = signedRequest(envelope, { secrets: [TEST_SECRET] });
  const started = performance.now();
  const res = await request(consumer.webhookUrl, { method: 'POST', body, headers });
  await res.body.dump();
  return { status: res.statusCode, ms: performance.now() - started };
}

describe('retention on a consumer with history', () => {
  let report: PruneReport;
  let before: number;
  const answers: Array<{ status: number; ms: number }> = [];
  const batches: number[] = [];

  beforeAll(async () => {
    consumer = await startTestConsumer({ RETENTION_ENABLED: 'false' });
    fillHistory();
    before = fileBytes();
    const pruner = createPruner({
      store: consumer.store,
      policy: DEFAULT_RETENTION,
      logger: pino({ level: 'silent' }),
      now: () => now,
      onBatch: (_step, ms) => batches.push(ms),
    });
    // Webhooks keep arriving, one after another, for as long as the run lasts.
    let running = true;
    const traffic = (async () => {
      while (running) answers.push(await sendWebhook());
    })();
    report = await pruner.run();
    running = false;
    await traffic;
  }, 120_000);
  afterAll(async () => {
    await consumer?.stop();
  });

  it('deletes what the default policy says, and nothing else', () => {
    const older = (days: number) => (DAYS - days) * PER_DAY;
    // Events past 90 days are gone; of the rest, those past 30 days have no body left.
    expect(report.counts.events).toBe(older(DEFAULT_RETENTION.eventDays));
    expect(count('SELECT COUNT(*) AS n FROM events')).toBe(
      DEFAULT_RETENTION.eventDays * PER_DAY + answers.length,
    );
    expect(report.counts.bodies).toBe(
      (DEFAULT_RETENTION.eventDays - DEFAULT_RETENTION.bodyDays) * PER_DAY,
    );
    // The dedupe record keeps the eventIds of the last 200 days' deleted events (and never
    // took older ones).
    expect(report.counts.eventIds).toBe(0);
    expect(count('SELECT COUNT(*) AS n FROM seen_events')).toBe(
      (DEFAULT_RETENTION.dedupeDays - DEFAULT_RETENTION.eventDays) * PER_DAY,
    );
    // Messages quiet for 400 days are forgotten; status changes went with their events.
    expect(report.counts.messages).toBe(older(DEFAULT_RETENTION.messageDays));
    expect(count('SELECT COUNT(*) AS n FROM messages')).toBe(
      DEFAULT_RETENTION.messageDays * PER_DAY,
    );
    expect(count('SELECT COUNT(*) AS n FROM status_changes')).toBe(
      DEFAULT_RETENTION.eventDays * PER_DAY,
    );
  });

  it('answers a redelivery of a deleted event as a duplicate, and stores nothing', async () => {
    const day = 150;
    const eventId = `history-${day}-7`;
    const redelivered = buildEnvelope({ eventId, messageId: eventId, action: 'deliveryNotified' });
    expect((await sendWebhook(redelivered)).status).toBe(204);
    expect(await consumer.store.events.get(eventId)).toBeUndefined();
  });

  it('keeps the statuses and import record of a message that may still change', async () => {
    const id = 'history-300-7';
    expect(await consumer.store.messages.get({ messageId: id, transfer: 'inbound' })).toMatchObject(
      { deliveryStatus: 'delivered', importLocation: `/documents/${id}` },
    );
    expect(
      await consumer.store.messages.get({ messageId: 'history-450-7', transfer: 'inbound' }),
    ).toBeUndefined();
  });

  it('gives the freed space back to the file system', () => {
    const after = fileBytes();
    expect(report.counts.pages).toBeGreaterThan(0);
    // Most of the file was bodies and rows past their time.
    expect(after).toBeLessThan(before * 0.5);
  });

  it('never holds up ingress: every webhook stored, batches far below 50 ms', () => {
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.every((answer) => answer.status === 204)).toBe(true);
    // A webhook that arrives during a batch waits for it to commit. Batches resize themselves
    // to about 10 ms; a stalled disk (a checkpoint's fsync on a busy machine) slows every
    // commit, pruning or not, so the bound is on the 95th percentile, and the longest batch
    // is reported (npm run bench -- --history measures webhook latency during a run).
    const sorted = [...batches].sort((a, b) => a - b);
    const p95 = sorted[Math.floor(sorted.length * 0.95)] ?? 0;
    expect(p95, `longest ${report.longestBatchMs.toFixed(1)} ms`).toBeLessThan(50);
  });
});

describe('retention in a running consumer', () => {
  it('runs on its schedule beside the worker, and counts what it removed', async () => {
    const running = await startTestConsumer(
      { RETENTION_INTERVAL_SECONDS: '1' },
      { startWorker: true },
    );
    try {
      const old = buildEnvelope();
      const { body, headers } = signedRequest(old, { secrets: [TEST_SECRET] });
      running.store.db
        .prepare(
          `INSERT INTO events (event_id, action, transfer, message_id, party, occurred_at, test,
                               body, received_at, state, attempts, next_attempt_at, updated_at)
           VALUES (?, 'messageStatusChanged', 'inbound', ?, '0192:999999999', ?, 0, ?, ?, 'done',
                   1, 0, 0)`,
        )
        .run(old.eventId, old.messageId, old.occurredAt, Buffer.from(body), 0);
      const dead = buildEnvelope();
      running.store.db
        .prepare(
          `INSERT INTO events (event_id, action, transfer, message_id, party, occurred_at, test,
                               body, received_at, state, attempts, next_attempt_at, updated_at,
                               last_error)
           VALUES (?, 'messageStatusChanged', 'inbound', ?, '0192:999999999', ?, 0, X'7B7D', 0,
                   'dead', 5, 0, 0, 'HTTP 503')`,
        )
        .run(dead.eventId, dead.messageId, dead.occurredAt);
      await vi.waitFor(
        () => expect(running.logs.some((line) => line.msg === 'retention run done')).toBe(true),
        { timeout: 20_000, interval: 50 },
      );
      expect(await running.store.events.get(old.eventId)).toBeUndefined();
      const res = await request(running.webhookUrl, { method: 'POST', body, headers });
      expect(res.statusCode).toBe(204);
      await res.body.dump();
      const metrics = await (await request(`${running.url}/metrics`)).body.text();
      expect(metrics).toMatch(/retention_pruned_total\{step="events"\} 1\b/);
      // A dead event older than RETENTION_DEAD_DAYS went too, and left the dead count.
      expect(await running.store.events.get(dead.eventId)).toBeUndefined();
      expect(metrics).toMatch(/retention_pruned_total\{step="dead"\} 1\b/);
      expect(metrics).toMatch(/^inbox_dead_events 0$/m);
      // Every batch's time is on the histogram.
      expect(metrics).toMatch(/retention_batch_duration_seconds_count\{step="events"\} [1-9]/);
    } finally {
      await running.stop();
    }
  });
});
