/**
 * The minimum submit-invoice body (docs/messaging-api.md#submit-invoice-body), from the sandbox
 * participant to `receiver`: the same invoice as scripts/examples/invoice.json, written here so
 * that the document's SubmitInvoice schema types it.
 */
import type { components } from '../generated/openapi.ts';

const SANDBOX_PARTICIPANT = '0192:999999999';

export function exampleInvoice(receiver: string): components['schemas']['SubmitInvoice'] {
  return {
    messageHandling: { receiverIdentifier: receiver, fallbackEmailAddress: 'ap@example.com' },
    invoice: {
      invoiceNo: 'INV-1001',
      issueDate: '2026-01-05T08:00:00.000Z',
      currencyCode: 'NOK',
      orderReference: { documentNo: 'PO-77', issueDate: '2026-01-02T10:00:00.000Z' },
      supplier: {
        vatNumber: 'NO999999999MVA',
        name: 'Sandbox Participant AS',
        identifier: SANDBOX_PARTICIPANT,
        address: {
          streetNameAndNumber: 'Main Street 1',
          city: 'Oslo',
          postalZone: '0150',
          countryCode: 'NO',
        },
      },
      customer: {
        name: 'Demo Supplier AS',
        identifier: receiver,
        address: {
          streetNameAndNumber: 'Harbour Road 2',
          city: 'Bergen',
          postalZone: '5003',
          countryCode: 'NO',
        },
      },
      invoiceLines: [
        {
          itemNo: 'A-1',
          name: 'Salt',
          quantity: 3,
          unitOfMeasure: { unit: 'kilogram' },
          unitPriceAmount: 10,
          taxCategoryType: 'standard',
          taxableAmount: 30,
          taxAmount: 7.5,
          taxPercentage: 25,
        },
      ],
    },
  };
}
