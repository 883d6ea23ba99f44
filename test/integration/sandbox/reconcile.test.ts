/** Reconciliation as a function, against the provider: the parts the e2e test does not reach. */
import { describe, expect, it, vi } from 'vitest';
import { createFileImporter, PermanentImportError } from '../../../src/consumer/importer/index.ts';
import { SANDBOX_PARTY, type Sandbox, startSandboxForTest } from '../../support/sandbox.ts';
import { createTestReconciler } from '../../support/test-reconciler.ts';

let sandbox: Sandbox;

const reconciler = (staleAfterMs: number) =>
  createTestReconciler(sandbox.consumer, {
    importer: createFileImporter({ documentsDir: `${sandbox.consumer.dir}/documents` }),
    staleAfterMs,
  });

describe('reconcile', () => {
  it('refreshes a local message that heard nothing for longer than the retry window', async () => {
    sandbox = await startSandboxForTest({ webhooks: false });
    const messageId = await sandbox.sendInboundInvoice();
    // The consumer heard of the message once; everything after that was lost.
    // The simulator publishes on a later tick.
    const created = await vi.waitFor(() => {
      const found = sandbox.published.find(
        (e) => e.messageId === messageId && e.party === SANDBOX_PARTY && e.action === 'created',
      );
      if (found === undefined) throw new Error('no created event yet');
      return found;
    });
    expect(await sandbox.post(created)).toBe(204);
    await sandbox.consumer.worker.drain();
    await sandbox.api(`/messages/${messageId}/mark-as-delivered`, 'POST');
    await sandbox.admin('POST', `/messages/${messageId}/payment`, {
      paidAmount: '10.00',
      paymentDate: '2026-11-21',
    });
    const before = (await sandbox.view(messageId)).body.inbound;
    expect(before?.deliveryStatus).not.toBe('delivered');

    // Not silent for long enough yet: left alone.
    expect(await reconciler(60 * 60_000)()).toMatchObject({ found: 0, refreshed: 0, failed: 0 });
    expect((await sandbox.view(messageId)).body.inbound).toEqual(before);

    expect(await reconciler(0)()).toMatchObject({ found: 0, refreshed: 1, failed: 0 });
    expect((await sandbox.view(messageId)).body.inbound).toMatchObject({
      deliveryStatus: 'delivered',
      lifecycleStatus: 'paid',
    });
    // Final now: the next run has nothing to refresh.
    expect(await reconciler(0)()).toMatchObject({ refreshed: 0 });
  });

  it('counts a message the importer rejects as rejected, and marks it failed', async () => {
    sandbox = await startSandboxForTest({ webhooks: false });
    const messageId = await sandbox.sendInboundInvoice({ invoice: { invoiceNo: 'REJECT-1' } });
    const reconcile = createTestReconciler(sandbox.consumer, {
      importer: {
        async import(input) {
          throw new PermanentImportError(`ERP refuses ${input.descriptor.documentNo}`);
        },
      },
    });
    expect(await reconcile()).toMatchObject({
      found: 1,
      imported: 0,
      acknowledged: 0,
      rejected: 1,
      failed: 0,
    });
    const state = await sandbox.admin<{ sides: { inbound: { status: string } } }>(
      'GET',
      `/messages/${messageId}`,
    );
    expect(state.sides.inbound.status).toBe('failed');
  });
});
