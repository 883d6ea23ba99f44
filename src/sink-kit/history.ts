/**
 * The status history the sink kit's cases play: inbound invoices that the participant takes,
 * the tax authority hears of and the buyer pays, at the simulator, so that each has a
 * delivery, a tax reporting and a lifecycle change; and those status events posted to the
 * consumer shuffled, a third of them twice, as the service may deliver them. Each invoice's
 * three streams must end at delivered, electronic and paid, whatever the order.
 */
import type { WebhookEnvelope } from '../protocol/index.ts';
import { seededRandom } from '../provider/seeded-random.ts';
import type { KitSandbox } from './sandbox.ts';

/** Where each stream of a played invoice ends (its last notice's newValue). */
export const FINAL_VALUES = {
  delivery: 'delivered',
  taxReporting: 'electronic',
  lifecycle: 'paid',
} as const;

/** What happens to each invoice at the simulator, in order: one change of each stream. */
const STEPS: ReadonlyArray<(sandbox: KitSandbox, id: string) => Promise<unknown>> = [
  (sandbox, id) => sandbox.api(`/messages/${id}/mark-as-delivered`),
  (sandbox, id) =>
    sandbox.admin('POST', `/messages/${id}/tax-report`, {
      jurisdiction: 'Croatia',
      status: FINAL_VALUES.taxReporting,
    }),
  (sandbox, id) =>
    sandbox.admin('POST', `/messages/${id}/payment`, {
      paidAmount: '1.00',
      paymentDate: '2026-11-20',
    }),
];

/** Invoices delivered, tax reported and paid at the simulator; their events not yet sent. */
export async function makeHistory(sandbox: KitSandbox, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const made = await sandbox.admin<{ messageId: string }>('POST', '/messages/inbound', {});
    ids.push(made.messageId);
  }
  for (const id of ids) {
    for (const step of STEPS) await step(sandbox, id);
  }
  return ids;
}

/** The inbound status events of `ids`, as the simulator made them. */
export function statusHistory(sandbox: KitSandbox, ids: readonly string[]): WebhookEnvelope[] {
  return sandbox.published.filter(
    (e) =>
      ids.includes(e.messageId) &&
      e.party === sandbox.party &&
      e.transfer === 'inbound' &&
      e.action.endsWith('StatusChanged'),
  );
}

/** `events` and about a third of them again, in an order `seed` makes (replayable). */
export function shuffled(events: readonly WebhookEnvelope[], seed: number): WebhookEnvelope[] {
  const next = seededRandom(seed);
  const all = [...events, ...events.filter(() => next() < 0.3)];
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [all[i], all[j]] = [all[j] as WebhookEnvelope, all[i] as WebhookEnvelope];
  }
  return all;
}
