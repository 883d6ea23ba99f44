/**
 * Consumer rules that no other test would notice breaking (docs/rules.md): unknown status
 * property names are kept and never required; a formerValue the consumer cannot continue
 * from makes it fetch the message, and what the service says wins over the event.
 */
import { describe, expect, it, vi } from 'vitest';
import { type Sandbox, startSandboxForTest } from '../../support/sandbox.ts';
import { buildEnvelope } from '../../support/webhooks.ts';

let sandbox: Sandbox;

/** The `created` event the simulator published for the message (it publishes asynchronously). */
function publishedCreated(messageId: string) {
  return vi.waitFor(() => {
    const created = sandbox.published.find(
      (e) => e.messageId === messageId && e.transfer === 'inbound' && e.action === 'created',
    );
    if (created === undefined) throw new Error('not published yet');
    return created;
  });
}

describe('consumer rules', () => {
  it('an unknown status property name is answered 204, kept, and the change applied', async () => {
    sandbox = await startSandboxForTest({ webhooks: false });
    const messageId = await sandbox.sendInboundInvoice();
    const event = buildEnvelope({
      messageId,
      action: 'lifecycleStatusChanged',
      data: {
        formerValue: 'none',
        newValue: 'paid',
        properties: { paidAmount: '10.00', settlementChannel: 'instant', futureFlag: 'x' },
      },
    });
    // The consumer knows nothing of the message yet; give it the state the event continues from.
    const created = await publishedCreated(messageId);
    expect(await sandbox.post(created as never)).toBe(204);
    expect(await sandbox.post(event)).toBe(204);
    await sandbox.consumer.worker.drain();
    const changes = await sandbox.consumer.store.messages.statusChanges({
      messageId,
      transfer: 'inbound',
    });
    expect(changes.find((c) => c.eventId === event.eventId)).toMatchObject({
      outcome: 'applied',
      properties: { paidAmount: '10.00', settlementChannel: 'instant', futureFlag: 'x' },
    });
    expect((await sandbox.view(messageId)).body.inbound?.lifecycleStatus).toBe('paid');
  });

  it('fetches GET /messages/:mid when formerValue does not match, and keeps the service value over the event', async () => {
    sandbox = await startSandboxForTest({ webhooks: false });
    const messageId = await sandbox.sendInboundInvoice();
    const created = await publishedCreated(messageId);
    expect(await sandbox.post(created as never)).toBe(204);
    await sandbox.consumer.worker.drain();
    // Stored: received (from created). The event claims retrying -> failed; the service says
    // pendingdelivery. Applying newValue blindly would store failed.
    const event = buildEnvelope({
      messageId,
      data: { formerValue: 'retrying', newValue: 'failed' },
    });
    expect(await sandbox.post(event)).toBe(204);
    await sandbox.consumer.worker.drain();
    const calls = sandbox.provider.provider.callLog
      .list({ messageId })
      .map((c) => `${c.method} ${c.path}`);
    expect(calls).toEqual([`GET /messages/${messageId}`]);
    expect((await sandbox.view(messageId)).body.inbound?.deliveryStatus).toBe('pendingdelivery');
    const [change] = (
      await sandbox.consumer.store.messages.statusChanges({ messageId, transfer: 'inbound' })
    ).filter((c) => c.eventId === event.eventId);
    expect(change?.outcome).toBe('refreshed');
  });
});
