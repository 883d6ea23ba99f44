/**
 * `GET /messages/:mid?transfer=` is this project's extension (docs/decisions.md#transfer-query):
 * the consumer must work against a service that ignores it. A self-send has two sides; a
 * service that ignores the parameter answers with the inbound one, and the consumer must not
 * take those values for the outbound side.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  eventually,
  SANDBOX_PARTY,
  type Sandbox,
  startSandboxForTest,
} from '../../support/sandbox.ts';
import { buildEnvelope } from '../../support/webhooks.ts';

const EXAMPLE = join(import.meta.dirname, '../../../scripts/examples/invoice.json');

let sandbox: Sandbox;

async function selfSend(): Promise<string> {
  const invoice = JSON.parse(readFileSync(EXAMPLE, 'utf8'));
  invoice.messageHandling.receiverIdentifier = SANDBOX_PARTY;
  const { messageId } = await sandbox.consumer.api.submitInvoice(invoice);
  // Validation and delivery run on the provider's next tick; wait for both sides.
  await eventually(
    async () =>
      sandbox.published.filter((e) => e.messageId === messageId && e.action === 'deliveryNotified')
        .length === 2,
    'deliveryNotified, outbound and inbound',
  );
  return messageId;
}

describe('a service that ignores ?transfer= on GET /messages/:mid', () => {
  it('applies a fetched descriptor to the side it names, never to the other side of a self-send', async () => {
    sandbox = await startSandboxForTest({ webhooks: false });
    const messageId = await selfSend();
    // The receiver's access point confirms: outbound delivered, inbound still pending.
    await sandbox.admin('POST', `/messages/${messageId}/deliver`, {});
    await sandbox.admin('PUT', `/participants/${SANDBOX_PARTY}/settings`, {
      transferQuery: 'ignored',
    });

    // An outbound change the consumer cannot continue from (it stored nothing): it fetches.
    const event = buildEnvelope({
      messageId,
      transfer: 'outbound',
      data: { formerValue: 'retrying', newValue: 'delivered' },
    });
    expect(await sandbox.post(event)).toBe(204);
    await sandbox.consumer.worker.drain();

    const calls = sandbox.provider.provider.callLog.list({ messageId });
    expect(
      calls.filter((c) => c.method === 'GET' && c.path === `/messages/${messageId}`),
    ).toHaveLength(1);
    const { body } = await sandbox.view(messageId);
    // The answer was the inbound side (pendingdelivery): recorded there, not on the outbound.
    expect(body.outbound?.deliveryStatus).toBe('delivered');
    expect(body.inbound?.deliveryStatus).toBe('pendingdelivery');
  });
});
