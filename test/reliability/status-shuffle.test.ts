/**
 * 10,000 status events (SPEC.md 6.3: no ordering guarantee, duplicates possible) for several
 * hundred inbound invoices, each with a random history of delivery, tax reporting and
 * lifecycle changes: about 7,700 distinct events and 30% more duplicates, shuffled, under
 * three seeds. The statuses the consumer ends with are the provider's, which are those of
 * in-order delivery.
 *
 * The approach of test/integration/sandbox/status-ordering.test.ts, scaled up and kept fast:
 * the provider runs on a manual clock moved 0 or 1 ms per step by the seed (so which changes
 * share a millisecond comes from the seed, never from the machine's speed), its model is driven
 * in-process, and its answers carry no Date header (a fetch dated after the whole history
 * would cover every event by itself). Each seed has a consumer of its own (its own inbox and
 * writer), and the seeds run at once. Events enter the inbox through the store, as ingress
 * stores them (the ingress has suites of its own); half the duplicates keep their eventId (the
 * service's retry, deduplicated), half come with a new one (an operator's replay, which the
 * worker must shrug off too).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEvent } from '../../src/consumer/store/events.ts';
import type { WebhookEnvelope } from '../../src/protocol/index.ts';
import { createManualClock } from '../../src/provider/clock.ts';
import { startTestConsumer, type TestConsumer } from '../support/consumer.ts';
import { SANDBOX_PARTY, type Sandbox, startSandbox } from '../support/sandbox.ts';
import { FUZZ_SEED, seededRandom, shuffle } from './support/fuzz.ts';

const EVENTS = Number(process.env.RELIABILITY_STATUS_EVENTS ?? 10_000);
const SEEDS = [FUZZ_SEED, 7, 42];
const DUPLICATES = 0.3;

const clock = createManualClock();
let sandbox: Sandbox;
let history: WebhookEnvelope[];
let messageIds: string[];
let databaseDir: string | undefined;
const consumers = new Map<number, TestConsumer>();

/** One random history, driven on the provider's model directly (no HTTP: thousands of steps). */
function runHistory(messageId: string, next: () => number) {
  const { model } = sandbox.provider.provider;
  const message = model.messages.get(messageId);
  const pick = <T>(options: T[]) => options[Math.floor(next() * options.length)] as T;
  const step = (change: () => unknown) => {
    clock.advance(next() < 0.5 ? 0 : 1);
    change();
  };
  step(() => model.messages.markAsDelivered(messageId, SANDBOX_PARTY));
  step(() =>
    model.actions.reportTax(message, {
      jurisdiction: pick(['Croatia', 'Slovakia'] as const),
      status: pick(['electronic', 'non_electronic', 'failed'] as const),
      errorCode: 'TAX-1',
      errorMessage: 'rejected by the tax authority',
    }),
  );
  if (next() < 0.5) {
    step(() =>
      model.actions.registerPayment(message, { paidAmount: '125.00', paymentDate: '2026-11-20' }),
    );
  } else {
    step(() =>
      model.actions.registerRejection(message, {
        rejectionType: pick(['MismatchAffectingTaxes', 'Other'] as const),
        reason: 'wrong price',
      }),
    );
  }
  for (let round = 0; round < 3; round++) {
    step(() => model.transitions.park(messageId, `on hold ${round}`, 'inbound'));
    if (next() < 0.15) return;
    step(() => model.transitions.retry(messageId, 'inbound'));
    if (next() < 0.5) step(() => model.messages.markAsDelivered(messageId, SANDBOX_PARTY));
    else step(() => model.messages.markAsFailed(messageId, SANDBOX_PARTY, 'cannot take it'));
  }
}

const isStatusEvent = (e: WebhookEnvelope) =>
  e.party === SANDBOX_PARTY && e.transfer === 'inbound' && e.action.endsWith('StatusChanged');

beforeAll(async () => {
  // Durability is not under test here, ordering is: the inboxes live in memory (a tmpfs), so
  // that the test's time goes to the worker, not to fsync on a shared disk.
  databaseDir = mkdtempSync(
    join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'status-shuffle-'),
  );
  sandbox = await startSandbox({ webhooks: false, provider: { clock } });
  // One consumer per seed, each with its own database and writer: the seeds run at once.
  for (const seed of SEEDS) {
    consumers.set(
      seed,
      await startTestConsumer(
        {
          API_BASE_URL: sandbox.provider.url,
          API_TOKEN: 'sandbox-token',
          API_TIMEOUT_MS: '5000',
          LOG_LEVEL: 'warn',
          WORKER_CONCURRENCY: '16',
          DATABASE_URL: `sqlite:${join(databaseDir, `seed-${seed}.db`)}`,
        },
        { startWorker: true, worker: { pollIntervalMs: 20, retryDelay: () => 100 } },
      ),
    );
  }
  const next = seededRandom(FUZZ_SEED);
  messageIds = [];
  const { model } = sandbox.provider.provider;
  while (sandbox.published.filter(isStatusEvent).length * (1 + DUPLICATES) < EVENTS) {
    const batch: string[] = [];
    for (let i = 0; i < 50; i++) {
      const invoice = await sandbox.sendInboundInvoice();
      batch.push(invoice);
    }
    clock.advance(0); // validation and delivery run on the next tick
    for (const id of batch) {
      expect(model.messages.get(id).sides.inbound?.status).toBe('pendingdelivery');
      runHistory(id, next);
    }
    messageIds.push(...batch);
  }
  await sandbox.admin('POST', '/faults', {
    count: 1_000_000,
    mode: 'undated',
    pathPrefix: '/messages/',
  });
  history = sandbox.published.filter(isStatusEvent);
}, 60_000);

afterAll(async () => {
  await Promise.all([...consumers.values()].map((consumer) => consumer.stop()));
  await sandbox?.stop();
  if (databaseDir !== undefined) rmSync(databaseDir, { recursive: true, force: true });
});

describe(`${EVENTS} status events, ${DUPLICATES * 100}% of them duplicates, shuffled`, () => {
  it('the history is rich: every kind of status, many same-millisecond ties', () => {
    expect(history.length * (1 + DUPLICATES)).toBeGreaterThanOrEqual(EVENTS);
    const tied = new Map<string, number>();
    for (const e of history) {
      const key = `${e.messageId} ${e.action} ${e.occurredAt}`;
      tied.set(key, (tied.get(key) ?? 0) + 1);
    }
    expect([...tied.values()].filter((n) => n >= 3).length).toBeGreaterThan(history.length / 50);
    expect(new Set(history.map((e) => e.action)).size).toBe(3);
  });

  for (const seed of SEEDS) {
    it.concurrent(`ends with the in-order statuses for seed ${seed}`, async ({ expect }) => {
      const next = seededRandom(seed);
      const events = history;
      const copies = events
        .filter(() => next() < DUPLICATES)
        .map((e) => (next() < 0.5 ? e : { ...e, eventId: `${e.eventId}-replayed` }));
      const delivered = shuffle([...events, ...copies], next);
      const { store, worker } = consumers.get(seed) as TestConsumer;

      // Stored as the ingress stores a verified event, a few hundred at a time.
      for (let i = 0; i < delivered.length; i += 500) {
        await Promise.all(
          delivered
            .slice(i, i + 500)
            .map((e) =>
              store.events.insert(newEvent(e, Buffer.from(JSON.stringify(e)), Date.now())),
            ),
        );
        worker.notify();
      }
      await worker.drain();
      expect(await store.events.countOpen()).toMatchObject({
        pending: 0,
        processing: 0,
        dead: 0,
      });

      const { model } = sandbox.provider.provider;
      const wrong = [];
      for (const messageId of messageIds) {
        const expected = model.messages.get(messageId).sides.inbound;
        const actual = await store.messages.get({ messageId, transfer: 'inbound' });
        const want = [expected?.status, expected?.taxReportingStatus, expected?.lifecycleStatus];
        const got = [actual?.deliveryStatus, actual?.taxReportingStatus, actual?.lifecycleStatus];
        if (want.join() !== got.join()) wrong.push({ messageId, want, got });
      }
      expect(wrong, `seed ${seed}`).toEqual([]);
      console.log(
        `status shuffle, seed ${seed}: ${delivered.length} events (${history.length} distinct, ` +
          `${copies.length} duplicates) for ${messageIds.length} messages: all equal in-order`,
      );
    }, 120_000);
  }
});
