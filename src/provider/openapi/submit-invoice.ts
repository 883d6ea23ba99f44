/**
 * The SubmitInvoice schema, built from the elements the simulator's validator checks
 * (invoice-validation.ts) so that the document and the validation agree: every element shown
 * is mandatory, non-empty and of its kind's form (KIND_FORMS).
 */

import { CALENDAR_DATE } from '../../protocol/index.ts';
import {
  KIND_FORMS,
  type Kind,
  MANDATORY_ELEMENTS,
  MANDATORY_LINE_ELEMENTS,
} from '../invoice-validation.ts';
import type { Schema } from './parts.ts';

function kindSchema(kind: Kind): Schema {
  const form = KIND_FORMS[kind];
  if (form.type === 'number') return { type: 'number' };
  if (form.pattern === undefined) return { type: 'string', minLength: 1 };
  return {
    type: 'string',
    minLength: 1,
    pattern: form.pattern.source,
    description: `Must be ${form.expected}.`,
  };
}

/** Objects along the elements' paths; each object requires what it holds, and stays open. */
function tree(elements: readonly { path: string; kind: Kind }[]): Schema {
  const root: Schema = { type: 'object', properties: {}, required: [] };
  for (const element of elements) {
    let node = root;
    const keys = element.path.split('.');
    keys.forEach((key, index) => {
      const properties = node.properties as Record<string, Schema>;
      const required = node.required as string[];
      if (!required.includes(key)) required.push(key);
      if (index === keys.length - 1) {
        properties[key] = kindSchema(element.kind);
      } else {
        properties[key] ??= { type: 'object', properties: {}, required: [] };
        node = properties[key];
      }
    });
  }
  return root;
}

const text: Schema = { type: 'string', minLength: 1 };
const date: Schema = { type: 'string', pattern: CALENDAR_DATE.source, description: 'YYYY-MM-DD.' };
const number: Schema = { type: 'number' };
const object = (properties: Record<string, Schema>, required: string[] = []): Schema => ({
  type: 'object',
  properties,
  ...(required.length > 0 ? { required } : {}),
});
const address = object(
  {
    streetNameAndNumber: text,
    additionalStreetName: text,
    city: text,
    postalZone: text,
    countrySubentity: text,
    countryCode: text,
  },
  ['countryCode'],
);
const legalRegistration = object({ id: text, schemeId: text }, ['id']);
const contact = object({ name: text, telephone: text, email: text });
const category = { taxCategoryType: text, taxPercentage: number };

/**
 * This project's optional elements (docs/peppol.md#model), by the object they belong to. The
 * simulator validates them (billing/rules.ts); the schema states their shapes only.
 */
const OPTIONAL: Record<
  'invoice' | 'supplier' | 'customer' | 'address' | 'line',
  Record<string, Schema>
> = {
  invoice: {
    documentType: { type: 'string', enum: ['Invoice', 'CreditNote'] },
    typeCode: text,
    dueDate: date,
    paymentTerms: text,
    paymentMeans: object(
      {
        code: text,
        paymentId: text,
        accountId: text,
        accountName: text,
        bic: text,
        mandateId: text,
        payerAccountId: text,
      },
      ['code'],
    ),
    buyerReference: text,
    note: text,
    billingReference: object({ invoiceNo: text, issueDate: date }, ['invoiceNo']),
    delivery: object({ date, name: text, address }),
    allowanceCharges: {
      type: 'array',
      items: object(
        {
          chargeIndicator: { type: 'boolean' },
          amount: number,
          reason: text,
          reasonCode: text,
          baseAmount: number,
          percentage: number,
          ...category,
        },
        ['chargeIndicator', 'amount', 'taxCategoryType', 'taxPercentage'],
      ),
    },
    taxBreakdown: {
      type: 'array',
      items: object(
        {
          ...category,
          taxableAmount: number,
          taxAmount: number,
          taxExemptionReasonCode: text,
          taxExemptionReason: text,
        },
        ['taxCategoryType', 'taxPercentage', 'taxableAmount', 'taxAmount'],
      ),
    },
    prepaidAmount: number,
  },
  supplier: { tradingName: text, taxRegistrationId: text, legalRegistration, contact },
  customer: { vatNumber: text, tradingName: text, legalRegistration, contact },
  address: { additionalStreetName: text, countrySubentity: text },
  line: {
    description: text,
    buyersItemNo: text,
    orderLineReference: text,
    taxExemptionReasonCode: text,
    taxExemptionReason: text,
  },
};

function addOptional(schema: Schema, properties: Record<string, Schema>): void {
  Object.assign(schema.properties as Record<string, Schema>, properties);
}

export function submitInvoiceSchema(): Schema {
  const body = tree(MANDATORY_ELEMENTS);
  const invoice = (body.properties as Record<string, Schema>).invoice as Schema;
  (invoice.properties as Record<string, Schema>).invoiceLines = {
    type: 'array',
    minItems: 1,
    items: tree(MANDATORY_LINE_ELEMENTS),
  };
  (invoice.required as string[]).push('invoiceLines');
  const at = (schema: Schema, key: string) =>
    (schema.properties as Record<string, Schema>)[key] as Schema;
  addOptional(invoice, OPTIONAL.invoice);
  for (const party of ['supplier', 'customer'] as const) {
    addOptional(at(invoice, party), OPTIONAL[party]);
    addOptional(at(at(invoice, party), 'address'), OPTIONAL.address);
  }
  addOptional(at(invoice, 'invoiceLines').items as Schema, OPTIONAL.line);
  return {
    ...body,
    title: 'SubmitInvoice',
    description:
      'A valid submit-invoice body: the mandatory elements of the specification (docs/messaging-api.md#submit-invoice-body), each present, non-empty and of its form, and the optional elements this project adds (docs/peppol.md#model). The service has optional elements that are not shown; they are kept as sent, so every object is open. Besides its form, the simulator checks a body against the EN 16931 and Peppol BIS Billing 3.0 business rules it lists in docs/peppol.md#validation, reporting each with its official rule id. The service validates after accepting (a 201 says nothing about validity): a body that breaks this schema is still answered 201, and then fails validation, announced by messageStatusChanged to `failed` with errorCode, errorMessage and validationResults (code `schema` for an element of the wrong form, the rule identifier for a missing one).',
  };
}
