/** The consumer's view of invoices it sends, from the provider's outbound events. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually, SANDBOX_PARTY, startSandboxForTest } from '../../support/sandbox.ts';

const EXAMPLE = join(import.meta.dirname, '../../../scripts/examples/invoice.json');
const example = () => JSON.parse(readFileSync(EXAMPLE, 'utf8'));

describe('outbound invoice', () => {
  it('is recorded as validated when deliveryNotified arrives, then delivered when the receiver confirms', async () => {
    const sandbox = await startSandboxForTest();
    const { messageId, status } = await sandbox.consumer.api.submitInvoice(example());
    expect(status).toBe('received');

    const validated = await eventually(async () => {
      const { body } = await sandbox.view(messageId);
      return body?.outbound?.validationStatus === 'approved' ? body : undefined;
    }, 'the outbound side to be validated');
    expect(validated.inbound).toBeNull();
    expect(validated.outbound).toMatchObject({
      deliveryStatus: 'pendingdelivery',
      documentNo: 'INV-1001',
    });

    await sandbox.admin('POST', `/messages/${messageId}/deliver`, {});
    await eventually(
      async () => (await sandbox.view(messageId)).body?.outbound?.deliveryStatus === 'delivered',
      'the delivered status event',
    );
  });

  it('keeps the validation findings of a rejected invoice, errors first', async () => {
    const sandbox = await startSandboxForTest();
    const invoice = example();
    delete invoice.invoice.invoiceNo;
    invoice.invoice.invoiceLines[0].taxAmount = 8; // also a warning: not 25% of 30
    const { messageId } = await sandbox.consumer.api.submitInvoice(invoice);

    const view = await eventually(async () => {
      const { body } = await sandbox.view(messageId);
      // The service's descriptor says rejected; the consumer's view must end there too. The
      // events carrying the two can be handled in either order: wait for both.
      return body?.outbound?.deliveryStatus === 'failed' &&
        body.outbound.validationStatus === 'rejected'
        ? body
        : undefined;
    }, 'the failed status and the rejected validation');
    expect(view.outbound?.validationStatus).toBe('rejected');
    const [change] = (
      await sandbox.consumer.store.messages.statusChanges({ messageId, transfer: 'outbound' })
    ).filter((c) => c.newValue === 'failed');
    expect(change?.properties?.errorCode).toBeDefined();
    const results = change?.validationResults as { type: string; code: string }[];
    expect(results.length).toBeGreaterThanOrEqual(2);
    expect(results[0]).toMatchObject({ type: 'error', code: change?.properties?.errorCode });
    expect(results.at(-1)?.type).toBe('warning');
    const sent = sandbox.published.filter(
      (e) => e.messageId === messageId && e.party === SANDBOX_PARTY,
    );
    expect(sent.some((e) => e.action === 'deliveryNotified')).toBe(false);
  });

  it('ends rejected whatever the arrival order: created (validationStatus none) after the failure changes nothing', async () => {
    const sandbox = await startSandboxForTest({ webhooks: false });
    const invoice = example();
    delete invoice.invoice.invoiceNo;
    const { messageId } = await sandbox.consumer.api.submitInvoice(invoice);
    const events = await eventually(async () => {
      const sent = sandbox.published.filter((e) => e.messageId === messageId);
      return sent.length === 2 ? sent : undefined;
    }, 'created and the failure');
    expect(events.map((e) => e.action)).toEqual(['created', 'messageStatusChanged']);
    expect(events[0]?.data).toMatchObject({ validationStatus: 'none' });
    for (const event of [...events].reverse()) expect(await sandbox.post(event)).toBe(204);
    await sandbox.consumer.worker.drain();
    const { body } = await sandbox.view(messageId);
    expect(body.outbound).toMatchObject({ deliveryStatus: 'failed', validationStatus: 'rejected' });
  });
});
