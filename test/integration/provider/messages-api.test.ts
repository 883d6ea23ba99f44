import { describe, expect, it } from 'vitest';
import {
  assertWellFormed,
  minimalInvoice,
  SANDBOX,
  SUPPLIER,
  testProviderForEachTest,
} from './helpers.ts';

const provider = testProviderForEachTest();

interface Page {
  items: { uniqueId: string; status: string; transfer: string; documentNo: string }[];
  nextCursor: string | null;
}

/** The sandbox participant submits an invoice with this number to the demo supplier. */
async function submit(invoiceNo: string): Promise<string> {
  const invoice = minimalInvoice(SUPPLIER);
  invoice.invoice.invoiceNo = invoiceNo;
  return (await provider.submitInvoice(invoice)).messageId;
}

async function list(query: string): Promise<Page> {
  const res = await provider.api(`/messages?${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Page;
}

describe('messaging API reads', () => {
  it('GET /messages/:mid answers exactly the descriptor fields of SPEC 2.2', async () => {
    const messageId = await provider.inbound();
    const res = await provider.api(`/messages/${messageId}`);
    const descriptor = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(descriptor)).toEqual([
      'uniqueId',
      'timeReceived',
      'documentNo',
      'status',
      'transfer',
      'validationStatus',
      'taxReportingStatus',
      'lifecycleStatus',
      'importStatus',
      'action',
      'originParty',
      'destinationParty',
      'documents',
    ]);
    expect(descriptor).toMatchObject({
      uniqueId: messageId,
      status: 'pendingdelivery',
      transfer: 'inbound',
      validationStatus: 'approved',
      taxReportingStatus: 'none',
      lifecycleStatus: 'none',
      importStatus: 'NotSet',
      action: 'SubmitInvoice',
      originParty: { identifier: SUPPLIER, name: 'Demo Supplier AS', countryCode: 'NO' },
      destinationParty: { identifier: SANDBOX },
    });
    expect(descriptor.timeReceived).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(descriptor.documents).toContainEqual(
      expect.objectContaining({
        index: 0,
        name: 'Invoice',
        contentType: 'application/xml',
        attachmentType: 'Core',
        isTransformed: false,
      }),
    );
    expect((await provider.api('/messages/unknown')).status).toBe(404);
  });

  it('GET /messages/:mid/documents/core is well-formed UBL with the invoice number, escaped', async () => {
    const messageId = await provider.inbound({
      invoice: { invoiceNo: 'INV-<7>&"8"', customer: { name: "O'Brien & Co" } },
    });
    const res = await provider.api(`/messages/${messageId}/documents/core`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
    const xml = await res.text();
    assertWellFormed(xml);
    expect(xml).toContain('xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"');
    expect(xml).toContain('<cbc:ID>INV-&lt;7&gt;&amp;&quot;8&quot;</cbc:ID>');
    expect(xml).toContain('O&apos;Brien &amp; Co');
  });

  it('GET /messages pages with a stable cursor and filters by status and transfer', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await provider.inbound());
    await provider.api(`/messages/${ids[1]}/mark-as-delivered`, { method: 'POST' });

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `?status=pendingdelivery&transfer=inbound&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = (await (await provider.api(`/messages${query}`)).json()) as Page;
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((m) => m.uniqueId));
      cursor = page.nextCursor;
      // A message arriving while paging appears on a later page, never shifting earlier ones.
      if (seen.length === 2) ids.push(await provider.inbound());
    } while (cursor !== null);
    expect(seen).toEqual(ids.filter((id) => id !== ids[1]));

    const all = (await (await provider.api('/messages')).json()) as Page;
    expect(all.items).toHaveLength(6);
    expect(all.nextCursor).toBeNull();
    expect((await (await provider.api('/messages?transfer=outbound')).json()) as Page).toEqual({
      items: [],
      nextCursor: null,
    });
  });

  it('GET /messages?documentNo= lists exactly that invoice number, with the other filters and across pages', async () => {
    const number = 'INV 7/&?é';
    const first = await provider.inbound({ invoice: { invoiceNo: number } });
    await provider.inbound({ invoice: { invoiceNo: 'INV 7/&?é-2' } });
    await provider.inbound({ invoice: { invoiceNo: 'inv 7/&?é' } });
    const outbound = await submit(number);
    const second = await provider.inbound({ invoice: { invoiceNo: number } });
    await submit('INV-8');
    const third = await provider.inbound({ invoice: { invoiceNo: number } });
    await provider.api(`/messages/${second}/mark-as-delivered`, { method: 'POST' });
    const documentNo = `documentNo=${encodeURIComponent(number)}`;

    const all = await list(documentNo);
    expect(all.items.map((m) => [m.uniqueId, m.transfer])).toEqual([
      [first, 'inbound'],
      [outbound, 'outbound'],
      [second, 'inbound'],
      [third, 'inbound'],
    ]);
    expect(all.items.every((m) => m.documentNo === number)).toBe(true);
    expect(all.nextCursor).toBeNull();
    expect((await list(`${documentNo}&transfer=outbound`)).items.map((m) => m.uniqueId)).toEqual([
      outbound,
    ]);
    expect(
      (await list(`${documentNo}&transfer=inbound&status=pendingdelivery`)).items.map(
        (m) => m.uniqueId,
      ),
    ).toEqual([first, third]);

    // One match a page: every page full, the last one says so, none skipped or repeated.
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await list(`${documentNo}&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      pages.push(page.items.map((m) => m.uniqueId));
      cursor = page.nextCursor;
    } while (cursor !== null && pages.length < 10);
    expect(pages).toEqual([[first], [outbound], [second], [third]]);

    expect(await list(`documentNo=${'x'.repeat(200)}`)).toEqual({ items: [], nextCursor: null });
  });

  it.each([
    ['documentNo=', 'documentNo'],
    [`documentNo=${'x'.repeat(201)}`, 'documentNo'],
    ['documentNo=INV%0A1', 'documentNo'],
    ['documentNo=INV%C2%851', 'documentNo'],
    ['documentNo=INV-1&documentNo=INV-2', 'documentNo'],
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=ten', 'limit'],
    ['transfer=sideways', 'transfer'],
    ['cursor=garbage', 'cursor'],
  ])('answers 400 naming the parameter for %s', async (query, field) => {
    const res = await provider.api(`/messages?${query}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ status: 400, field });
  });
});
