/**
 * Status changes that share a millisecond (docs/retries.md#delivery-semantics: occurredAt has millisecond
 * resolution, no ordering guarantee). The simulator runs on a manual clock, so every change
 * below happens in the same millisecond on every machine; the consumer then receives the
 * message's status events in every possible order and must end with the service's values.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WebhookEnvelope } from '../../../src/protocol/index.ts';
import { createManualClock } from '../../../src/provider/clock.ts';
import { SANDBOX_PARTY, type Sandbox, startSandbox } from '../../support/sandbox.ts';

const clock = createManualClock();
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ webhooks: false, provider: { clock } });
});
afterAll(async () => {
  await sandbox.stop();
});
beforeEach(() => {
  sandbox.consumer.store.db.exec('DELETE FROM messages; DELETE FROM status_changes');
});

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}

type Step = 'deliver' | 'fail' | 'park' | 'retry';

/**
 * An inbound invoice, pendingdelivery since an earlier millisecond, then `steps` all within
 * one later millisecond. The clock stays in that millisecond, half a second into its second:
 * the Date of the service's answers (whole seconds) is then before the tie, so a fetch does
 * not cover the tie by itself and the same-millisecond rule is what decides.
 */
async function tiedHistory(
  steps: Step[],
): Promise<{ messageId: string; events: WebhookEnvelope[] }> {
  const messageId = await sandbox.sendInboundInvoice();
  clock.advance(0); // validation and delivery, scheduled on the next tick
  clock.advance(1500 - (clock.now() % 1000));
  for (const step of steps) {
    if (step === 'deliver') await sandbox.api(`/messages/${messageId}/mark-as-delivered`, 'POST');
    if (step === 'fail') await sandbox.api(`/messages/${messageId}/mark-as-failed`, 'POST');
    if (step === 'park') {
      await sandbox.admin('POST', `/messages/${messageId}/park`, {
        reason: 'on hold',
        transfer: 'inbound',
      });
    }
    if (step === 'retry') {
      await sandbox.admin('POST', `/messages/${messageId}/retry`, { transfer: 'inbound' });
    }
  }
  const events = sandbox.published.filter(
    (e) =>
      e.messageId === messageId &&
      e.party === SANDBOX_PARTY &&
      e.transfer === 'inbound' &&
      e.action === 'messageStatusChanged',
  );
  return { messageId, events };
}

async function serviceStatus(messageId: string): Promise<string> {
  return (await sandbox.api<{ status: string }>(`/messages/${messageId}?transfer=inbound`)).status;
}

async function consumerStatus(messageId: string): Promise<string | null | undefined> {
  return (await sandbox.view(messageId)).body.inbound?.deliveryStatus;
}

let run = 0;
/** Posts `events` in this order (fresh eventIds per run, so runs do not dedupe), then drains. */
async function deliverInOrder(events: readonly WebhookEnvelope[]) {
  run += 1;
  sandbox.consumer.store.db.exec('DELETE FROM messages; DELETE FROM status_changes');
  for (const event of events) {
    expect(await sandbox.post({ ...event, eventId: `${event.eventId}-run-${run}` })).toBe(204);
  }
  await sandbox.consumer.worker.drain();
}

const transitions = (events: readonly WebhookEnvelope[]) =>
  events.map((e) => {
    const data = e.data as { formerValue: string; newValue: string };
    return `${data.formerValue}->${data.newValue}@${e.occurredAt.slice(11)}`;
  });

describe('status changes that share a millisecond', () => {
  it.each<[string, Step[], string]>([
    ['a cycle of two', ['park', 'retry'], 'pendingdelivery'],
    ['a cycle of three', ['deliver', 'park', 'retry'], 'pendingdelivery'],
    [
      'a cycle of three that comes back once more',
      ['deliver', 'park', 'retry', 'deliver'],
      'delivered',
    ],
    ['a chain that ends elsewhere', ['deliver', 'park'], 'parked'],
    ['two cycles in a row', ['park', 'retry', 'park', 'retry', 'fail'], 'failed'],
  ])('%s converges in every arrival order', async (_name, steps, expected) => {
    const { messageId, events } = await tiedHistory(steps);
    expect(await serviceStatus(messageId)).toBe(expected);
    // The history really has its ties: every change after the first shares one millisecond.
    const tied = events.slice(1).map((e) => e.occurredAt);
    expect(new Set(tied).size, transitions(events).join(' ')).toBe(1);

    const orders = events.length <= 5 ? permutations(events) : [events, [...events].reverse()];
    for (const order of orders) {
      await deliverInOrder(order);
      expect(await consumerStatus(messageId), transitions(order).join(' ')).toBe(expected);
    }
  });

  it('with duplicates, delivered twice in every order, it still converges', async () => {
    const { messageId, events } = await tiedHistory(['deliver', 'park', 'retry']);
    const [first, ...rest] = events as [WebhookEnvelope, ...WebhookEnvelope[]];
    // Duplicates keep their eventId (the service's retry): ingress dedupes them, and an
    // operator's replay of a done event must not change the outcome either.
    for (const order of permutations(rest)) {
      await deliverInOrder([...order, first, ...order]);
      expect(await consumerStatus(messageId)).toBe('pendingdelivery');
    }
  });

  it('a value fetched for a cycle is not overwritten by events of the same millisecond', async () => {
    const { messageId, events } = await tiedHistory(['deliver', 'park', 'retry']);
    const tied = events.slice(1);
    // The cycle's last two changes arrive first: parked -> pendingdelivery, then
    // delivered -> parked; with the first of the millisecond (pendingdelivery -> delivered)
    // they close a cycle the events cannot order, so the consumer asks the service.
    await deliverInOrder([events[0] as WebhookEnvelope, ...tied]);
    const gets = () =>
      sandbox.provider.provider.callLog
        .list({ messageId })
        .filter((c) => c.method === 'GET' && c.path === `/messages/${messageId}`).length;
    const before = gets();
    const changes = await sandbox.consumer.store.messages.statusChanges({
      messageId,
      transfer: 'inbound',
    });
    expect(changes.map((c) => c.outcome)).toContain('refreshed');
    expect(await consumerStatus(messageId)).toBe('pendingdelivery');

    // Late copies of the same millisecond's changes (an operator's redelivery, new ids).
    for (const event of [...tied].reverse()) {
      expect(await sandbox.post({ ...event, eventId: `${event.eventId}-late` })).toBe(204);
    }
    await sandbox.consumer.worker.drain();
    expect(await consumerStatus(messageId)).toBe('pendingdelivery');
    expect(gets()).toBe(before);
  });

  it('a fetch answered after the millisecond covers all of it: one call, the rest stale', async () => {
    const { messageId, events } = await tiedHistory(['deliver', 'park', 'retry', 'deliver']);
    clock.advance(1000); // the service answers a second later; its Date says so
    const gets = () =>
      sandbox.provider.provider.callLog
        .list({ messageId })
        .filter((c) => c.method === 'GET' && c.path === `/messages/${messageId}`).length;
    const before = gets();
    await deliverInOrder([...events].reverse());
    expect(await consumerStatus(messageId)).toBe('delivered');
    expect(gets() - before).toBe(1);
    const outcomes = (
      await sandbox.consumer.store.messages.statusChanges({ messageId, transfer: 'inbound' })
    ).map((c) => c.outcome);
    expect(outcomes.sort()).toEqual(['refreshed', 'stale', 'stale', 'stale', 'stale']);
  });
});
