/**
 * The messaging API client against the real provider simulator on a free port (api-client.test.ts
 * scripts a stand-in instead): the list filtered by invoice number, and calls whose reply is lost
 * after the simulator did the work (the `lose-reply` fault), which is what an outbox of
 * submissions has to survive.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApiClient, ApiError, createApiClient } from '../../../src/consumer/api/index.ts';
import {
  minimalInvoice,
  SUPPLIER,
  startTestProvider,
  type TestProvider,
  TOKEN,
} from '../provider/helpers.ts';

let provider: TestProvider;
let api: ApiClient;

beforeEach(async () => {
  provider = await startTestProvider();
  api = createApiClient({ baseUrl: provider.url, token: TOKEN, retryBaseDelayMs: 10 });
});
afterEach(async () => {
  await api.close();
  await provider.close();
});

function invoice(invoiceNo: string) {
  const body = minimalInvoice(SUPPLIER);
  body.invoice.invoiceNo = invoiceNo;
  return body;
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** The messaging calls the simulator received, oldest first (its call log). */
async function calls(messageId: string) {
  const res = await provider.admin(`/api-calls?messageId=${messageId}`, undefined, 'GET');
  return ((await res.json()) as { items: { method: string; status: number | null }[] }).items;
}

describe('the API client on the simulator', () => {
  it('lists the messages of one invoice number, page by page', async () => {
    const ids: string[] = [];
    ids.push(await provider.inbound({ invoice: { invoiceNo: 'INV-42' } }));
    await provider.inbound({ invoice: { invoiceNo: 'INV-420' } });
    ids.push((await api.submitInvoice(invoice('INV-42'))).messageId);
    ids.push(await provider.inbound({ invoice: { invoiceNo: 'INV-42' } }));

    const first = await api.listMessages({ documentNo: 'INV-42', limit: 2 });
    expect(first.items.map((m) => m.uniqueId)).toEqual(ids.slice(0, 2));
    expect(first.nextCursor).not.toBeNull();
    const all = await collect(api.listAllMessages({ documentNo: 'INV-42', limit: 1 }));
    expect(all.map((m) => [m.uniqueId, m.documentNo])).toEqual(ids.map((id) => [id, 'INV-42']));
    const outbound = await collect(
      api.listAllMessages({ documentNo: 'INV-42', transfer: 'outbound' }),
    );
    expect(outbound.map((m) => m.uniqueId)).toEqual([ids[1]]);
  });

  it('reports a submit whose reply was lost as "maybe sent", not retried, though the invoice exists once', async () => {
    await provider.admin('/faults', {
      count: 1,
      mode: 'lose-reply',
      pathPrefix: '/transactions/submit-invoice',
    });
    const error = await api.submitInvoice(invoice('INV-LOST')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: undefined, retryable: false });
    expect((error as ApiError).message).toMatch(/may have acted on it: check before sending again/);

    // The service created it: the check an outbox makes before sending the invoice again.
    const created = await collect(
      api.listAllMessages({ documentNo: 'INV-LOST', transfer: 'outbound' }),
    );
    expect(created.map((m) => m.documentNo)).toEqual(['INV-LOST']);
    const messageId = created[0]?.uniqueId ?? '';
    expect(provider.eventsOf(messageId).map((e) => e.action)).toEqual(['created']);
    expect(await calls(messageId)).toEqual([
      expect.objectContaining({ method: 'POST', status: null }),
    ]);

    const next = await api.submitInvoice(invoice('INV-NEXT'));
    expect(next.status).toBe('received');
    expect(await collect(api.listAllMessages({ documentNo: 'INV-LOST' }))).toHaveLength(1);
  });

  it('retries a read whose reply was lost, and gets its answer', async () => {
    const messageId = await provider.inbound({ invoice: { invoiceNo: 'INV-READ' } });
    await provider.admin('/faults', {
      count: 1,
      mode: 'lose-reply',
      pathPrefix: `/messages/${messageId}`,
    });
    const { descriptor } = await api.getMessage(messageId);
    expect(descriptor).toMatchObject({ uniqueId: messageId, documentNo: 'INV-READ' });
    expect((await calls(messageId)).map((c) => [c.method, c.status])).toEqual([
      ['GET', null],
      ['GET', 200],
    ]);
  });
});
