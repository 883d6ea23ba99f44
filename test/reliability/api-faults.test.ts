/**
 * The messaging API misbehaving the whole time (seeded): 20% of calls answer 5xx, 5% hang past
 * API_TIMEOUT_MS (and are acted upon later, after the consumer gave up: an answer lost), 5%
 * lose their connection unanswered. A hundred invoices arrive, some with a tax report and a
 * payment. Every invoice is imported exactly once and acknowledged, no message is ever marked
 * as failed, and no event is dead-lettered: a transient fault is never the message's fault.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileImporter, type Importer } from '../../src/consumer/importer/index.ts';
import { eventually, type Sandbox, startSandbox } from '../support/sandbox.ts';
import { FUZZ_SEED } from './support/fuzz.ts';

const INVOICES = Number(process.env.RELIABILITY_API_FAULT_INVOICES ?? 100);

let sandbox: Sandbox;
const imported = new Map<string, number>();

beforeAll(async () => {
  let documentsDir = '';
  const importer: Importer = {
    async import(input) {
      const result = await createFileImporter({ documentsDir }).import(input);
      if (result.status === 'imported') {
        imported.set(input.messageId, (imported.get(input.messageId) ?? 0) + 1);
      }
      return result;
    },
  };
  sandbox = await startSandbox({
    importer,
    // The webhook retries (1 min, ...) pass 600 times faster; every call stays in the log.
    provider: { timeScale: 600, callLogCapacity: 1_000_000 },
    consumerEnv: { API_TIMEOUT_MS: '300', WORKER_CONCURRENCY: '16' },
  });
  documentsDir = `${sandbox.consumer.dir}/documents`;
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('messaging API faults', () => {
  it(`${INVOICES} invoices through 5xx, hangs and resets: each imported once and acknowledged, none marked failed`, async () => {
    const s = sandbox;
    // In the order they are tried: 5% hang, then 5% of all reset, then 20% of all 5xx.
    const faults = [
      { mode: 'hang', hangMs: 1500, rate: 0.05 },
      { mode: 'reset', rate: 0.05 / 0.95 },
      { mode: '500', rate: 0.1 / 0.9 },
      { mode: '503', rate: 0.1 / 0.8 },
    ];
    for (const [i, fault] of faults.entries()) {
      await s.admin('POST', '/faults', { count: 1_000_000, seed: FUZZ_SEED + i, ...fault });
    }

    const messageIds: string[] = [];
    for (let i = 0; i < INVOICES; i++) {
      const messageId = await s.sendInboundInvoice();
      messageIds.push(messageId);
      if (i % 4 === 0) {
        await s.admin('POST', `/messages/${messageId}/tax-report`, {
          jurisdiction: 'Croatia',
          status: 'electronic',
        });
      }
      if (i % 5 === 0) {
        await s.admin('POST', `/messages/${messageId}/payment`, {
          paidAmount: '125.00',
          paymentDate: '2026-11-20',
        });
      }
    }

    const model = s.provider.provider.model.messages;
    await eventually(
      async () => messageIds.every((id) => model.get(id).sides.inbound?.status === 'delivered'),
      'every invoice acknowledged',
      60_000,
    );
    await eventually(
      async () => {
        const counts = await s.consumer.store.events.countOpen();
        return (counts.pending ?? 0) + (counts.processing ?? 0) === 0;
      },
      'every event handled',
      30_000,
    );

    const calls = s.provider.provider.callLog.list();
    expect(calls.filter((c) => c.path.endsWith('/mark-as-failed'))).toEqual([]);
    expect(await s.consumer.store.events.countOpen()).toMatchObject({ dead: 0 });
    expect(messageIds.filter((id) => imported.get(id) !== 1)).toEqual([]);
    // The statuses the consumer keeps are the service's.
    for (const id of messageIds) {
      const side = model.get(id).sides.inbound;
      const { body } = await s.view(id);
      expect(body.inbound, id).toMatchObject({
        deliveryStatus: side?.status,
        taxReportingStatus: side?.taxReportingStatus,
        lifecycleStatus: side?.lifecycleStatus,
      });
    }

    const failed = (status: number | null) => calls.filter((c) => c.status === status).length;
    const unanswered = failed(null);
    console.log(
      `API faults: ${calls.length} messaging calls, ${failed(500) + failed(503)} answered 5xx, ` +
        `${unanswered} hung or reset; ${INVOICES} invoices imported once, 0 mark-as-failed`,
    );
    // The faults really happened, at about the rates asked for.
    expect((failed(500) + failed(503)) / calls.length).toBeGreaterThan(0.1);
    expect(unanswered).toBeGreaterThan(0);
  }, 120_000);
});
