/**
 * SPEC 2.1 names a line's unit and tax category in words ("a word such as a weight unit", "for
 * example a standard-rated category"). However a client writes them, as words or as their
 * codes, its invoice is the same one (docs/peppol.md#codes): approved, and the same core
 * document, through the simulator's own HTTP API.
 */
import { describe, expect, it } from 'vitest';
import type { MessageDescriptor } from '../../../src/protocol/index.ts';
import { change, minimalInvoice, SANDBOX, SUPPLIER, testProviderForEachTest } from './helpers.ts';

const provider = testProviderForEachTest();

const SPELLINGS = [
  { invoiceNo: 'INV-WORDS-1', unit: 'Kilogram', category: 'StandardRated' },
  { invoiceNo: 'INV-WORDS-2', unit: 'kilogram', category: 'standard' },
  { invoiceNo: 'INV-WORDS-3', unit: 'KGM', category: 'S' },
];

/** Submits the minimal body spelled one way; its core document once validation approved it. */
async function approvedCoreDocument(spelling: (typeof SPELLINGS)[number]): Promise<string> {
  const body = minimalInvoice(SUPPLIER);
  body.invoice.invoiceNo = spelling.invoiceNo;
  const [line] = body.invoice.invoiceLines;
  if (line === undefined) throw new Error('the minimal body has a line');
  line.unitOfMeasure.unit = spelling.unit;
  line.taxCategoryType = spelling.category;
  const { messageId } = await provider.submitInvoice(body);
  provider.settle();

  const res = await provider.api(`/messages/${messageId}?transfer=outbound`);
  const descriptor = (await res.json()) as MessageDescriptor;
  expect(descriptor.validationStatus, spelling.unit).toBe('approved');
  expect(descriptor.status).toBe('pendingdelivery');
  // Approved without a finding: no warning either.
  const [queued] = provider.eventsOf(messageId, {
    party: SANDBOX,
    deliveryStatus: 'pendingdelivery',
  });
  expect(change(queued).properties).toBeUndefined();

  const core = await provider.api(`/messages/${messageId}/documents/core`);
  expect(core.status).toBe(200);
  return core.text();
}

describe('unit and tax category words in a submitted invoice', () => {
  it('approves the minimal body spelled Kilogram/StandardRated, kilogram/standard and KGM/S alike, with one core document', async () => {
    const documents: string[] = [];
    for (const spelling of SPELLINGS) documents.push(await approvedCoreDocument(spelling));

    // What must differ between three invoices: each has its own number (the document's
    // cbc:ID). The dates come from the body, the same in all three, so they are compared too.
    const comparable = documents.map((xml, i) => {
      const own = `<cbc:ID>${SPELLINGS[i]?.invoiceNo}</cbc:ID>`;
      expect(xml.split(own)).toHaveLength(2);
      return xml.replace(own, '<cbc:ID>(invoice number)</cbc:ID>');
    });
    expect(comparable[1]).toBe(comparable[0]);
    expect(comparable[2]).toBe(comparable[0]);

    // And the one document carries the codes, never the words.
    const [xml] = comparable;
    expect(xml).toContain('<cbc:InvoicedQuantity unitCode="KGM">3</cbc:InvoicedQuantity>');
    expect(xml).toContain(
      '<cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>25</cbc:Percent>',
    );
    expect(xml).not.toMatch(/kilogram|standard/i);
  });
});
