/**
 * Rules of the service the simulator follows that no other test would notice breaking
 * (docs/rules.md maps every rule to its tests).
 */
import { describe, expect, it } from 'vitest';
import { parseValidationResults } from '../../../src/protocol/index.ts';
import { change, minimalInvoice, SANDBOX, SUPPLIER, testProviderForEachTest } from './helpers.ts';
import { startRecordingEndpoint } from './webhooks/recording-endpoint.ts';

const provider = testProviderForEachTest();

describe('rules of the service', () => {
  it('every real event carries test: false, a boolean', async () => {
    const messageId = await provider.inbound({ warnings: true });
    await provider.admin(`/messages/${messageId}/tax-report`, {
      jurisdiction: 'Croatia',
      status: 'electronic',
    });
    expect(provider.events.length).toBeGreaterThanOrEqual(8);
    for (const { envelope } of provider.events) expect(envelope.test).toBe(false);
  });

  it('errors come first in validationResults even when a warning is found before an error', async () => {
    const invoice = minimalInvoice(SUPPLIER) as {
      invoice: { invoiceLines: Record<string, unknown>[] };
    };
    const [line] = invoice.invoice.invoiceLines;
    // Line 1: a SIM-IL-03 warning (tax not 25% of 30). Line 2: an error (no name), found later.
    invoice.invoice.invoiceLines = [
      { ...line, taxAmount: 8 },
      { ...line, name: undefined },
    ];
    const { messageId } = await provider.submitInvoice(invoice);
    provider.settle();
    const failed = provider.eventsOf(messageId).at(-1);
    const results = JSON.parse(change(failed).properties?.validationResults ?? '[]') as {
      type: string;
      code: string;
    }[];
    expect(results.map((r) => [r.type, r.code])).toEqual([
      ['error', 'BR-25'],
      ['warning', 'SIM-IL-03'],
    ]);
    expect(change(failed).properties?.errorCode).toBe('BR-25');
  });

  it('tax reporting none -> non_electronic', async () => {
    const messageId = await provider.inbound();
    const res = await provider.admin(`/messages/${messageId}/tax-report`, {
      jurisdiction: 'Slovakia',
      status: 'non_electronic',
    });
    const { events } = (await res.json()) as { events: { party: string; action: string }[] };
    const mine = events.find((e) => e.party === SANDBOX);
    expect(mine?.action).toBe('taxReportingStatusChanged');
    expect(change(mine as never)).toMatchObject({
      formerValue: 'none',
      newValue: 'non_electronic',
    });
    const descriptor = await (await provider.api(`/messages/${messageId}`)).json();
    expect(descriptor).toMatchObject({ taxReportingStatus: 'non_electronic' });
  });

  it('inbound deliveryNotified lists all documents of the message', async () => {
    const messageId = await provider.inbound();
    const notified = provider
      .eventsOf(messageId, { transfer: 'inbound' })
      .find((e) => e.action === 'deliveryNotified');
    const descriptor = (await (await provider.api(`/messages/${messageId}`)).json()) as {
      documents: unknown[];
    };
    if (notified === undefined) throw new Error('no inbound deliveryNotified');
    const documents = (notified.data as { documents: { attachmentType: string }[] }).documents;
    expect(documents).toEqual(descriptor.documents);
    expect(documents.map((d) => d.attachmentType)).toEqual(['Core', 'Original']);
    expect(documents).toEqual(provider.provider.model.messages.get(messageId).documents);
  });

  it('a 2xx alone leaves the message pending: only mark-as-delivered acknowledges it', async () => {
    const endpoint = await startRecordingEndpoint({ status: 204 });
    try {
      provider.provider.dispatcher.createEndpoint(SANDBOX, { name: 'says 204', url: endpoint.url });
      const messageId = await provider.inbound();
      await provider.provider.dispatcher.idle();
      const bodies = endpoint.requests.map((r) => JSON.parse(r.body.toString('utf8')));
      expect(bodies.map((b) => b.action)).toContain('deliveryNotified');
      const pending = (await (
        await provider.api('/messages?status=pendingdelivery&transfer=inbound')
      ).json()) as { items: { uniqueId: string }[] };
      expect(pending.items.map((m) => m.uniqueId)).toContain(messageId);
      const status = await (await provider.api(`/messages/${messageId}/status`)).json();
      expect(status).toEqual({ status: 'pendingdelivery' });
    } finally {
      await endpoint.close();
    }
  });

  it('validationResults parse back in the same order, errors first', () => {
    const serialized = JSON.stringify([
      { type: 'warning', code: 'BR-CO-17', message: 'w', location: '/a' },
      { type: 'error', code: 'BR-02', message: 'e', location: '/b' },
    ]);
    expect(parseValidationResults(serialized).map((r) => r.type)).toEqual(['error', 'warning']);
  });
});
