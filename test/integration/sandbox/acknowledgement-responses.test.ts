/**
 * An acknowledgement-level response (MLR/eMLR) is an inbound message of its own
 * (docs/events.md#response-messages): the consumer imports and acknowledges it like any other, fetching its
 * JSON from its own business transaction's route. An importer that does not book responses
 * answers `not_booked`: the consumer still marks the response delivered, and records why.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentFolder } from '../../../src/consumer/importer/file-importer.ts';
import { createFileImporter, type Importer } from '../../../src/consumer/importer/index.ts';
import {
  eventually,
  SANDBOX_PARTY,
  type Sandbox,
  startSandboxForTest,
} from '../../support/sandbox.ts';

const EXAMPLE = join(import.meta.dirname, '../../../scripts/examples/invoice.json');

describe('acknowledgement-level responses', () => {
  it('an MLR for an invoice we sent is imported and acknowledged as an inbound message of its own', async () => {
    const sandbox = await startSandboxForTest();
    const { invoiceId, responseId } = await sendWithResponse(sandbox, 'MLR');
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

describe('a response the importer does not book', () => {
  it("is marked delivered all the same, its import location saying 'not booked' and why", async () => {
    const seen: string[] = [];
    // Books invoices as files; answers an eMLR not_booked, as an ERP without responses would.
    const importer: Importer = {
      async import(input) {
        seen.push(`${input.descriptor.action} ${input.messageId}`);
        if (input.descriptor.action === 'EMessageLevelResponse') {
          return { status: 'not_booked', reason: 'the ERP keeps no record of responses' };
        }
        return createFileImporter({ documentsDir: join(sandbox.consumer.dir, 'documents') }).import(
          input,
        );
      },
    };
    const sandbox = await startSandboxForTest({ importer });
    const { responseId } = await sendWithResponse(sandbox, 'eMLR');
    const view = await eventually(async () => {
      const { body } = await sandbox.view(responseId);
      return body?.inbound?.acknowledgedAt != null ? body.inbound : undefined;
    }, 'the eMLR acknowledged');
    expect(view).toMatchObject({
      acknowledgement: 'delivered',
      importLocation: 'not booked: the ERP keeps no record of responses',
      importError: null,
      failureReason: null,
    });
    expect(view.importedAt).not.toBeNull();
    const calls = sandbox.provider.provider.callLog
      .list({ messageId: responseId })
      .map((c) => `${c.method} ${c.path} ${c.status}`);
    expect(calls).toContain(`POST /messages/${responseId}/mark-as-delivered 204`);
    expect(calls.filter((c) => c.includes('mark-as-failed'))).toEqual([]);
    // At the service the response is delivered: no reconciliation offers it again.
    const state = await sandbox.admin<{ sides: { inbound?: { status: string } } }>(
      'GET',
      `/messages/${responseId}`,
    );
    expect(state.sides.inbound?.status).toBe('delivered');
    expect(seen).toEqual([`EMessageLevelResponse ${responseId}`]);
    expect(
      existsSync(documentFolder(join(sandbox.consumer.dir, 'documents'), 'inbound', responseId)),
    ).toBe(false);
  });
});

/**
 * The participant set up for `kind` responses submits an invoice; resolves once the response's
 * inbound deliveryNotified is published.
 */
async function sendWithResponse(
  sandbox: Sandbox,
  kind: 'MLR' | 'eMLR',
): Promise<{ invoiceId: string; responseId: string }> {
  await sandbox.admin('PUT', `/participants/${SANDBOX_PARTY}/settings`, {
    acknowledgementResponse: kind,
  });
  const invoice = JSON.parse(readFileSync(EXAMPLE, 'utf8'));
  const { messageId: invoiceId } = await sandbox.consumer.api.submitInvoice(invoice);
  const response = await eventually(
    async () =>
      sandbox.published.find((e) => e.messageId !== invoiceId && e.action === 'deliveryNotified'),
    `the ${kind}`,
  );
  return { invoiceId, responseId: response.messageId };
}
