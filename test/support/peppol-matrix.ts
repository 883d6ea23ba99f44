/**
 * PLACEHOLDER until the renderer rewrite brings the real matrix: the documents the simulator
 * renders that must pass the official Peppol BIS Billing 3 validators
 * (test/official/peppol-bis.test.ts). For now the sample invoice body, rendered as an Invoice and
 * as a CreditNote.
 */
import { sampleInvoice } from '../../src/provider/invoice.ts';
import { DEMO_SUPPLIER } from '../../src/provider/model/participants.ts';
import { renderUblInvoice } from '../../src/provider/ubl-invoice.ts';

export interface MatrixDocument {
  name: string;
  xml: string;
}

export function peppolMatrix(): MatrixDocument[] {
  const body = sampleInvoice({
    supplier: DEMO_SUPPLIER,
    customer: { identifier: '0192:222222222', name: 'Demo Customer AS', countryCode: 'NO' },
    invoiceNo: 'INV-1',
    issueDate: '2026-01-05T09:00:00.000Z',
  });
  return [
    { name: 'sample-invoice', xml: renderUblInvoice(body) },
    { name: 'sample-credit-note', xml: renderUblInvoice(body, { document: 'CreditNote' }) },
  ];
}
