/**
 * A valid sample of the submit-invoice request body (docs/messaging-api.md#submit-invoice-body),
 * which the scenario admin API and the tests start from. The body's type is the protocol's
 * (src/protocol/transaction-types.ts): the simulator answers the same JSON at
 * GET /transactions/submit-invoice that an importer parses.
 */
import type { SubmitInvoiceBody } from '../protocol/index.ts';
import { type SampleParty, sampleParties } from './sample-parties.ts';

export type { SampleParty } from './sample-parties.ts';

/**
 * A minimal valid body from `supplier` to `customer`; `invoiceNo` keeps samples apart. The
 * parties' VAT numbers, registrations and addresses are their countries' (sample-parties.ts),
 * so the body passes validation whichever two participants it is between.
 */
export function sampleInvoice(options: {
  supplier: SampleParty;
  customer: SampleParty;
  invoiceNo: string;
  issueDate: string;
}): SubmitInvoiceBody {
  const { invoiceNo, ...parties } = sampleParties(options);
  return {
    messageHandling: {
      receiverIdentifier: options.customer.identifier,
      fallbackEmailAddress: 'invoices@example.com',
    },
    invoice: {
      invoiceNo,
      issueDate: options.issueDate,
      currencyCode: 'NOK',
      orderReference: { documentNo: `PO-${options.invoiceNo}`, issueDate: options.issueDate },
      ...parties,
      invoiceLines: [
        {
          itemNo: 'ITEM-1',
          name: 'Coffee beans',
          quantity: 2,
          unitOfMeasure: { unit: 'kilogram' },
          unitPriceAmount: 150,
          taxCategoryType: 'standard',
          taxableAmount: 300,
          taxAmount: 75,
          taxPercentage: 25,
        },
      ],
    },
  };
}

/**
 * Deep-merges `overrides` into `base`: objects merge key by key, anything else (arrays too)
 * replaces. `null` removes a key, so a test can build an invalid body by naming one element.
 */
export function mergeOverrides(base: unknown, overrides: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(overrides)) return overrides;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === null) delete merged[key];
    else merged[key] = mergeOverrides(base[key], value);
  }
  return merged;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
