/**
 * Participant settings that change what a consumer receives (docs/events.md#status-properties, docs/statuses.md#transitions, docs/events.md#status-events):
 * acknowledgement-level responses as inbound messages of their own, a network that lets
 * documents with errors through, and the `?transfer=` extension switched off.
 */
import { describe, expect, it } from 'vitest';
import { parseValidationResults } from '../../../src/protocol/index.ts';
import {
  change,
  minimalInvoice,
  SANDBOX,
  SUPPLIER,
  summary,
  testProviderForEachTest,
} from './helpers.ts';

const provider = testProviderForEachTest();

async function settings(party: string, body: unknown) {
  const res = await provider.admin(`/participants/${party}/settings`, body, 'PUT');
  expect(res.status).toBe(200);
  return res.json();
}

async function submit(invoice: unknown): Promise<string> {
  const { messageId } = await provider.submitInvoice(invoice);
  provider.settle();
  return messageId;
}

describe('participant settings', () => {
  it('reads and changes settings, 404 for an unknown participant, 400 for a bad value', async () => {
    const res = await provider.admin(`/participants/${SANDBOX}/settings`, undefined, 'GET');
    expect(await res.json()).toEqual({
      acknowledgementResponse: 'none',
      deliverDocumentsWithErrors: false,
      transferQuery: 'honoured',
    });
    expect(await settings(SANDBOX, { acknowledgementResponse: 'MLR' })).toEqual({
      acknowledgementResponse: 'MLR',
      deliverDocumentsWithErrors: false,
      transferQuery: 'honoured',
    });
    expect((await provider.admin('/participants/0192:404/settings', {}, 'PUT')).status).toBe(404);
    const bad = await provider.admin(
      `/participants/${SANDBOX}/settings`,
      { acknowledgementResponse: 'IMR' },
      'PUT',
    );
    expect(bad.status).toBe(400);
  });

  it('an acknowledgement-level response (MLR) arrives as an inbound message of its own, announced with message events', async () => {
    await settings(SANDBOX, { acknowledgementResponse: 'MLR' });
    const invoiceId = await submit(minimalInvoice(SUPPLIER));
    const own = provider.events
      .map((e) => e.envelope)
      .filter((e) => e.party === SANDBOX && e.messageId !== invoiceId);
    const responseId = own[0]?.messageId ?? '';
    expect(own.every((e) => e.messageId === responseId && e.transfer === 'inbound')).toBe(true);
    expect(summary(own)).toEqual([
      'inbound:created',
      'inbound:messageStatusChanged:received->pendingdelivery',
      'inbound:deliveryNotified',
    ]);
    // It comes at the moment of the invoice's outbound deliveryNotified, right after it.
    const all = provider.events.map((e) => e.envelope);
    const notified = all.findIndex(
      (e) => e.messageId === invoiceId && e.action === 'deliveryNotified',
    );
    expect(all[notified + 1]?.messageId).toBe(responseId);
    // No status event of the invoice refers to it.
    for (const event of provider.eventsOf(invoiceId)) {
      expect(JSON.stringify(event.data)).not.toContain(responseId);
    }

    const descriptor = own.find((e) => e.action === 'deliveryNotified')?.data;
    expect(descriptor).toMatchObject({
      action: 'MessageLevelResponse',
      transfer: 'inbound',
      status: 'pendingdelivery',
      validationStatus: 'approved',
      documents: [{ name: 'ApplicationResponse', attachmentType: 'Core' }],
    });
    const core = await provider.api(`/messages/${responseId}/documents/core`);
    expect(core.headers.get('content-type')).toMatch(/^application\/xml/);
    const xml = await core.text();
    expect(xml).toContain('<ApplicationResponse');
    expect(xml).toContain('<cbc:ResponseCode>AB</cbc:ResponseCode>');
    const json = await provider.api(`/transactions/message-level-response?messageId=${responseId}`);
    expect(await json.json()).toMatchObject({
      responseType: 'MLR',
      responseCode: 'AB',
      referencedMessageId: invoiceId,
    });
    expect(
      (await provider.api(`/messages/${responseId}/mark-as-delivered`, { method: 'POST' })).status,
    ).toBe(204);
  });

  it('an eMLR is the same acknowledgement under its own business transaction', async () => {
    await settings(SANDBOX, { acknowledgementResponse: 'eMLR' });
    const invoiceId = await submit(minimalInvoice(SUPPLIER));
    const response = provider.events
      .map((e) => e.envelope)
      .find((e) => e.messageId !== invoiceId && e.action === 'deliveryNotified');
    expect(response?.data).toMatchObject({ action: 'EMessageLevelResponse' });
    const res = await provider.api(
      `/transactions/e-message-level-response?messageId=${response?.messageId}`,
    );
    expect(await res.json()).toMatchObject({ responseType: 'eMLR' });
  });

  it('no response for an invoice that fails validation, nor without the setting', async () => {
    await settings(SANDBOX, { acknowledgementResponse: 'MLR' });
    const invalid = minimalInvoice(SUPPLIER) as { invoice: Record<string, unknown> };
    delete invalid.invoice.invoiceNo;
    const failed = await submit(invalid);
    await settings(SANDBOX, { acknowledgementResponse: 'none' });
    const valid = await submit(minimalInvoice(SUPPLIER));
    const ids = new Set(provider.events.map((e) => e.envelope.messageId));
    expect([...ids].sort()).toEqual([failed, valid].sort());
  });

  it('a network that lets documents with errors through: pendingdelivery with the errors, inbound and outbound alike', async () => {
    await settings(SUPPLIER, { deliverDocumentsWithErrors: true });
    const messageId = await provider.inbound({ invoice: { supplier: { name: null } } });
    const toPending = provider.eventsOf(messageId, { deliveryStatus: 'pendingdelivery' });
    expect(toPending.map((e) => e.transfer)).toEqual(['outbound', 'inbound']);
    for (const event of toPending) {
      const results = parseValidationResults(change(event).properties?.validationResults);
      expect(results[0]).toMatchObject({ type: 'error', code: 'BR-06' });
    }
    expect(provider.eventsOf(messageId, { transfer: 'inbound' }).map((e) => e.action)).toContain(
      'deliveryNotified',
    );
    const descriptor = await (await provider.api(`/messages/${messageId}`)).json();
    expect(descriptor).toMatchObject({ status: 'pendingdelivery', validationStatus: 'approved' });
    // The receiver can fetch what it got, errors and all.
    const core = await provider.api(`/messages/${messageId}/documents/core`);
    expect(core.status).toBe(200);
    // The supplier's name is missing: left out of the document rather than written empty.
    const xml = await core.text();
    expect(xml.match(/<cbc:RegistrationName>/g)).toHaveLength(1); // the customer's only
    expect(xml).not.toMatch(/<(cbc:[A-Za-z]+)[^>]*><\/\1>/);
  });

  it('without that setting, an outbound document with errors ends failed with validationStatus rejected', async () => {
    const messageId = await provider.inbound({ invoice: { supplier: { name: null } } });
    expect(summary(provider.eventsOf(messageId))).toEqual([
      'outbound:created',
      'outbound:messageStatusChanged:received->failed',
    ]);
    const created = provider.eventsOf(messageId)[0];
    expect(created?.data).toMatchObject({ validationStatus: 'none' });
    const state = await (await provider.admin(`/messages/${messageId}`, undefined, 'GET')).json();
    expect(state).toMatchObject({ validationStatus: 'rejected' });
  });

  it('transferQuery ignored: GET /messages/:mid answers the side the service chooses, whatever ?transfer= says', async () => {
    const messageId = await submit(minimalInvoice(SANDBOX));
    await settings(SANDBOX, { transferQuery: 'ignored' });
    const answer = await provider.api(`/messages/${messageId}?transfer=outbound`);
    expect(await answer.json()).toMatchObject({ transfer: 'inbound' });
    // Even a value the honouring API refuses is ignored, as by a service that never reads it.
    expect((await provider.api(`/messages/${messageId}?transfer=sideways`)).status).toBe(200);
    await settings(SANDBOX, { transferQuery: 'honoured' });
    const honoured = await provider.api(`/messages/${messageId}?transfer=outbound`);
    expect(await honoured.json()).toMatchObject({ transfer: 'outbound' });
  });
});
