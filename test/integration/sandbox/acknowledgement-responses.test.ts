/**
 * An acknowledgement-level response (MLR/eMLR) is an inbound message of its own
 * (docs/events.md#response-messages): the consumer imports and acknowledges it like any other, fetching its
 * JSON from its own business transaction's route.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentFolder } from '../../../src/consumer/importer/file-importer.ts';
import { eventually, SANDBOX_PARTY, startSandboxForTest } from '../../support/sandbox.ts';

const EXAMPLE = join(import.meta.dirname, '../../../scripts/examples/invoice.json');

describe('acknowledgement-level responses', () => {
  it('an MLR for an invoice we sent is imported and acknowledged as an inbound message of its own', async () => {
    const sandbox = await startSandboxForTest();
    await sandbox.admin('PUT', `/participants/${SANDBOX_PARTY}/settings`, {
      acknowledgementResponse: 'MLR',
    });
    const invoice = JSON.parse(readFileSync(EXAMPLE, 'utf8'));
    const { messageId: invoiceId } = await sandbox.consumer.api.submitInvoice(invoice);
    const response = await eventually(
      async () =>
        sandbox.published.find((e) => e.messageId !== invoiceId && e.action === 'deliveryNotified'),
      'the MLR',
    );
    const responseId = response.messageId;
    await eventually(
      async () => (await sandbox.view(responseId)).body?.inbound?.acknowledgedAt != null,
      'the MLR acknowledged',
    );
    const calls = sandbox.provider.provider.callLog
      .list({ messageId: responseId })
      .map((c) => `${c.method} ${c.path} ${c.status}`);
    expect(calls).toEqual(
      expect.arrayContaining([
        `GET /messages/${responseId}/documents/core 200`,
        'GET /transactions/message-level-response 200',
        `POST /messages/${responseId}/mark-as-delivered 204`,
      ]),
    );
    const folder = documentFolder(join(sandbox.consumer.dir, 'documents'), 'inbound', responseId);
    expect(readFileSync(join(folder, 'core.xml'), 'utf8')).toContain('<ApplicationResponse');
    expect(JSON.parse(readFileSync(join(folder, 'transaction.json'), 'utf8'))).toMatchObject({
      responseCode: 'AB',
      referencedMessageId: invoiceId,
    });
  });
});
