/**
 * docs/retries.md#delivery-semantics: no ordering guarantee, duplicates possible. The provider runs 20 inbound
 * messages through random histories (about 10 status events each); the consumer then receives
 * those events shuffled and partly duplicated, and must end with the statuses the provider
 * has, which are those of in-order delivery.
 *
 * The provider runs on a manual clock that the history's seed moves by 0 or 1 ms between
 * steps, so which changes share a millisecond comes from the seed, never from the machine's
 * speed. Its answers carry no Date header here: a fetch dated after the whole history would
 * cover every event by itself, and this test is about the ordering rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookEnvelope } from '../../../src/protocol/index.ts';
import { createManualClock } from '../../../src/provider/clock.ts';
import { seededRandom } from '../../../src/provider/seeded-random.ts';
import { SANDBOX_PARTY, type Sandbox, startSandbox } from '../../support/sandbox.ts';

const MESSAGES = 20;
const SEEDS = [1, 7, 42];

function shuffle<T>(items: T[], next: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

const clock = createManualClock();
let sandbox: Sandbox;
let history: WebhookEnvelope[];
let messageIds: string[];

/** One random history: delivery moves, a tax report, a lifecycle change, maybe parking. */
async function runHistory(messageId: string, next: () => number) {
  const pick = <T>(options: T[]) => options[Math.floor(next() * options.length)] as T;
  // Before each step the clock moves 0 or 1 ms: about half the steps share a millisecond.
  const tick = () => clock.advance(next() < 0.5 ? 0 : 1);
  const admin = async (path: string, body: unknown) => {
    tick();
    await sandbox.admin('POST', `/messages/${messageId}${path}`, body);
  };
  const api = async (path: string) => {
    tick();
    await sandbox.api(`/messages/${messageId}${path}`, 'POST');
  };
  await api('/mark-as-delivered');
  await admin('/tax-report', {
    jurisdiction: pick(['Croatia', 'Slovakia']),
    status: pick(['electronic', 'non_electronic', 'failed']),
    errorCode: 'TAX-1',
    errorMessage: 'rejected by the tax authority',
  });
  if (next() < 0.5) await admin('/payment', { paidAmount: '125.00', paymentDate: '2026-11-20' });
  else
    await admin('/rejection', {
      rejectionType: pick(['MismatchAffectingTaxes', 'Other']),
      reason: 'wrong price',
    });
  for (let round = 0; round < 3; round++) {
    await admin('/park', { reason: `on hold ${round}`, transfer: 'inbound' });
    if (next() < 0.15) return;
    await admin('/retry', { transfer: 'inbound' });
    if (next() < 0.5) await api('/mark-as-delivered');
    else await api('/mark-as-failed');
  }
}

beforeAll(async () => {
  sandbox = await startSandbox({ webhooks: false, provider: { clock } });
  const next = seededRandom(2026);
  messageIds = [];
  for (let i = 0; i < MESSAGES; i++) messageIds.push(await sandbox.sendInboundInvoice());
  clock.advance(0); // validation and delivery run on the next tick
  for (const id of messageIds) await runHistory(id, next);
  await sandbox.admin('POST', '/faults', {
    count: 1_000_000,
    mode: 'undated',
    pathPrefix: '/messages/',
  });
  history = sandbox.published.filter(
    (e) =>
      e.party === SANDBOX_PARTY && e.transfer === 'inbound' && e.action.endsWith('StatusChanged'),
  );
}, 60_000);

afterAll(async () => {
  await sandbox.stop();
});

describe('status events out of order', () => {
  it('the provider produced a rich enough history, with same-millisecond ties', () => {
    expect(history.length).toBeGreaterThanOrEqual(200);
    const tied = new Map<string, number>();
    for (const e of history) {
      const key = `${e.messageId} ${e.action} ${e.occurredAt}`;
      tied.set(key, (tied.get(key) ?? 0) + 1);
    }
    // Changes of one status of one message within one millisecond: the hard case.
    expect([...tied.values()].filter((n) => n >= 2).length).toBeGreaterThanOrEqual(20);
    expect([...tied.values()].filter((n) => n >= 3).length).toBeGreaterThanOrEqual(5);
    const actions = new Set(history.map((e) => e.action));
    expect(actions).toEqual(
      new Set(['messageStatusChanged', 'taxReportingStatusChanged', 'lifecycleStatusChanged']),
    );
  });

  it('ignores events older than the stored change, without asking the service', async () => {
    const [messageId] = messageIds as [string];
    const events = history.filter((e) => e.messageId === messageId);
    await sandbox.consumer.store.db.exec('DELETE FROM messages; DELETE FROM status_changes');
    for (const e of events)
      expect(await sandbox.post({ ...e, eventId: `${e.eventId}-in-order` })).toBe(204);
    await sandbox.consumer.worker.drain();
    const before = (await sandbox.view(messageId)).body.inbound;
    const gets = async () =>
      (
        await sandbox.admin<{ items: { method: string; path: string }[] }>(
          'GET',
          `/api-calls?messageId=${messageId}`,
        )
      ).items.filter((c) => c.method === 'GET' && c.path === `/messages/${messageId}`).length;
    const getsBefore = await gets();

    for (const e of [...events].reverse())
      expect(await sandbox.post({ ...e, eventId: `${e.eventId}-late` })).toBe(204);
    await sandbox.consumer.worker.drain();

    expect((await sandbox.view(messageId)).body.inbound).toEqual(before);
    expect(await gets()).toBe(getsBefore);
    const outcomes = (
      await sandbox.consumer.store.messages.statusChanges({ messageId, transfer: 'inbound' })
    )
      .filter((c) => events.some((e) => `${e.eventId}-late` === c.eventId))
      .map((c) => c.outcome);
    expect(new Set(outcomes)).toEqual(new Set(['stale']));
  });

  it.each(SEEDS)('ends with the in-order statuses for seed %i', async (seed) => {
    const next = seededRandom(seed);
    const duplicates = history.filter(() => next() < 0.25);
    // Each seed gets fresh eventIds so the runs do not dedupe against one another.
    const delivered = shuffle([...history, ...duplicates], next).map((e) => ({
      ...e,
      eventId: `${e.eventId}-seed-${seed}`,
      messageId: `${e.messageId}`,
    }));
    await sandbox.consumer.store.db.exec('DELETE FROM messages; DELETE FROM status_changes');

    for (let i = 0; i < delivered.length; i += 20) {
      const batch = delivered.slice(i, i + 20);
      expect(await Promise.all(batch.map((e) => sandbox.post(e)))).toEqual(batch.map(() => 204));
    }
    await sandbox.consumer.worker.drain();
    expect(await sandbox.consumer.store.events.countOpen()).toMatchObject({
      pending: 0,
      processing: 0,
      dead: 0,
    });

    for (const messageId of messageIds) {
      const expected = await sandbox.api<{
        status: string;
        taxReportingStatus: string;
        lifecycleStatus: string;
      }>(`/messages/${messageId}?transfer=inbound`);
      const { body } = await sandbox.view(messageId);
      expect(
        {
          messageId,
          deliveryStatus: body.inbound?.deliveryStatus,
          taxReportingStatus: body.inbound?.taxReportingStatus,
          lifecycleStatus: body.inbound?.lifecycleStatus,
        },
        `seed ${seed}`,
      ).toEqual({
        messageId,
        deliveryStatus: expected.status,
        taxReportingStatus: expected.taxReportingStatus,
        lifecycleStatus: expected.lifecycleStatus,
      });
    }
  });
});
