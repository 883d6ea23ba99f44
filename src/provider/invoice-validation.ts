/**
 * Validation of a submit-invoice body (docs/messaging-api.md#submit-invoice-body). Every mandatory element that is
 * missing gets an error with the EN 16931 / Peppol rule that asks for it (or a `SIM-` code of
 * this simulator where no published rule fits); an element of the wrong type or form gets a
 * `schema` error. Locations are XPaths into the UBL document the body becomes (ubl-invoice.ts),
 * so a consumer sees what a real network validator would report. Errors come first.
 */
import {
  EMAIL_ADDRESS,
  ISO_DATE_TIME,
  PARTY_IDENTIFIER,
  sortValidationResults,
  UTC_MILLISECONDS,
  type ValidationResult,
} from '../protocol/index.ts';
import { readBillingDocument } from './billing/billing-document.ts';
import { checkBusinessRules } from './billing/rules.ts';
import { isPlainObject } from './invoice.ts';

/**
 * What an element must be, besides present and not empty. The OpenAPI document states each
 * kind's form from KIND_FORMS (openapi/submit-invoice.ts), so a body valid by the document
 * passes these checks and the other way round (up to Date.parse refusing an impossible date).
 */
export type Kind = 'string' | 'number' | 'identifier' | 'utcDateTime' | 'dateTime' | 'email';

export interface KindForm {
  type: 'string' | 'number';
  /** The form a string must have. */
  pattern?: RegExp;
  /** Also a date Date.parse can read (the pattern lets through a month 13). */
  isDate?: true;
  /** Said in the `schema` error's message: `must be <expected>`. */
  expected: string;
}

export const KIND_FORMS: Record<Kind, KindForm> = {
  string: { type: 'string', expected: 'a string' },
  number: { type: 'number', expected: 'a number' },
  identifier: {
    type: 'string',
    pattern: PARTY_IDENTIFIER,
    expected: 'an identifier of the form <scheme>:<number>',
  },
  utcDateTime: {
    type: 'string',
    pattern: UTC_MILLISECONDS,
    isDate: true,
    expected: 'an ISO 8601 date-time in UTC with milliseconds (2026-01-05T09:00:00.000Z)',
  },
  dateTime: {
    type: 'string',
    pattern: ISO_DATE_TIME,
    isDate: true,
    expected: 'an ISO 8601 date-time',
  },
  email: { type: 'string', pattern: EMAIL_ADDRESS, expected: 'an e-mail address' },
};

interface Element {
  /** Path in the JSON body, e.g. `invoice.supplier.name`. */
  path: string;
  kind: Kind;
  /** Rule identifier reported when the element is missing. */
  rule: string;
  location: string;
}

const SUPPLIER = '/Invoice/cac:AccountingSupplierParty/cac:Party';
const CUSTOMER = '/Invoice/cac:AccountingCustomerParty/cac:Party';

function address(party: 'supplier' | 'customer'): Element[] {
  const base = party === 'supplier' ? SUPPLIER : CUSTOMER;
  const [addressRule, countryRule] = party === 'supplier' ? ['BR-08', 'BR-09'] : ['BR-10', 'BR-11'];
  const at = `${base}/cac:PostalAddress`;
  const path = `invoice.${party}.address`;
  return [
    {
      path: `${path}.streetNameAndNumber`,
      kind: 'string',
      rule: addressRule,
      location: `${at}/cbc:StreetName`,
    },
    { path: `${path}.city`, kind: 'string', rule: addressRule, location: `${at}/cbc:CityName` },
    {
      path: `${path}.postalZone`,
      kind: 'string',
      rule: addressRule,
      location: `${at}/cbc:PostalZone`,
    },
    {
      path: `${path}.countryCode`,
      kind: 'string',
      rule: countryRule,
      location: `${at}/cac:Country/cbc:IdentificationCode`,
    },
  ];
}

/** The mandatory elements outside the invoice lines, in document order. */
export const MANDATORY_ELEMENTS: readonly Element[] = [
  {
    path: 'messageHandling.receiverIdentifier',
    kind: 'identifier',
    rule: 'SIM-MH-01',
    location: `${CUSTOMER}/cbc:EndpointID`,
  },
  {
    path: 'messageHandling.fallbackEmailAddress',
    kind: 'email',
    rule: 'SIM-MH-02',
    location: `${CUSTOMER}/cac:Contact/cbc:ElectronicMail`,
  },
  { path: 'invoice.invoiceNo', kind: 'string', rule: 'BR-02', location: '/Invoice/cbc:ID' },
  {
    path: 'invoice.issueDate',
    kind: 'utcDateTime',
    rule: 'BR-03',
    location: '/Invoice/cbc:IssueDate',
  },
  {
    path: 'invoice.currencyCode',
    kind: 'string',
    rule: 'BR-05',
    location: '/Invoice/cbc:DocumentCurrencyCode',
  },
  {
    path: 'invoice.orderReference.documentNo',
    kind: 'string',
    rule: 'PEPPOL-EN16931-R003',
    location: '/Invoice/cac:OrderReference/cbc:ID',
  },
  {
    path: 'invoice.orderReference.issueDate',
    kind: 'dateTime',
    rule: 'SIM-OR-01',
    location: '/Invoice/cac:OrderReference/cbc:IssueDate',
  },
  {
    path: 'invoice.supplier.vatNumber',
    kind: 'string',
    rule: 'BR-S-02',
    location: `${SUPPLIER}/cac:PartyTaxScheme/cbc:CompanyID`,
  },
  {
    path: 'invoice.supplier.name',
    kind: 'string',
    rule: 'BR-06',
    location: `${SUPPLIER}/cac:PartyLegalEntity/cbc:RegistrationName`,
  },
  {
    path: 'invoice.supplier.identifier',
    kind: 'identifier',
    rule: 'PEPPOL-EN16931-R020',
    location: `${SUPPLIER}/cbc:EndpointID`,
  },
  ...address('supplier'),
  {
    path: 'invoice.customer.name',
    kind: 'string',
    rule: 'BR-07',
    location: `${CUSTOMER}/cac:PartyLegalEntity/cbc:RegistrationName`,
  },
  {
    path: 'invoice.customer.identifier',
    kind: 'identifier',
    rule: 'PEPPOL-EN16931-R010',
    location: `${CUSTOMER}/cbc:EndpointID`,
  },
  ...address('customer'),
];

/** The mandatory elements of each invoice line; `path` is relative to the line. */
export const MANDATORY_LINE_ELEMENTS: readonly Element[] = [
  {
    path: 'itemNo',
    kind: 'string',
    rule: 'SIM-IL-01',
    location: 'cac:Item/cac:SellersItemIdentification/cbc:ID',
  },
  { path: 'name', kind: 'string', rule: 'BR-25', location: 'cac:Item/cbc:Name' },
  { path: 'quantity', kind: 'number', rule: 'BR-22', location: 'cbc:InvoicedQuantity' },
  {
    path: 'unitOfMeasure.unit',
    kind: 'string',
    rule: 'BR-23',
    location: 'cbc:InvoicedQuantity/@unitCode',
  },
  { path: 'unitPriceAmount', kind: 'number', rule: 'BR-26', location: 'cac:Price/cbc:PriceAmount' },
  {
    path: 'taxCategoryType',
    kind: 'string',
    rule: 'BR-CO-04',
    location: 'cac:Item/cac:ClassifiedTaxCategory/cbc:ID',
  },
  { path: 'taxableAmount', kind: 'number', rule: 'BR-24', location: 'cbc:LineExtensionAmount' },
  { path: 'taxAmount', kind: 'number', rule: 'SIM-IL-02', location: 'cac:TaxTotal/cbc:TaxAmount' },
  {
    path: 'taxPercentage',
    kind: 'number',
    rule: 'BR-S-05',
    location: 'cac:Item/cac:ClassifiedTaxCategory/cbc:Percent',
  },
];

export function getPath(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (!isPlainObject(current)) return undefined;
    current = current[key];
  }
  return current;
}

function check(value: unknown, element: Element, location: string): ValidationResult | undefined {
  const name = element.path.split('.').at(-1);
  if (value === undefined || value === null || value === '') {
    return { type: 'error', code: element.rule, message: `${name} is mandatory`, location };
  }
  const form = KIND_FORMS[element.kind];
  const fits =
    form.type === 'number'
      ? typeof value === 'number' && Number.isFinite(value)
      : typeof value === 'string' &&
        (form.pattern === undefined || form.pattern.test(value)) &&
        (form.isDate === undefined || !Number.isNaN(Date.parse(value)));
  if (fits) return undefined;
  return {
    type: 'error',
    code: 'schema',
    message: `${name} must be ${form.expected}, got ${JSON.stringify(value)}`,
    location,
  };
}

/**
 * Validates a body that is already known to be a JSON object: the mandatory elements
 * (SPEC 2.1), then the EN 16931 and Peppol BIS 3 business rules on the document the body
 * becomes (billing/rules.ts).
 */
export function validateInvoice(body: Record<string, unknown>): ValidationResult[] {
  const results: ValidationResult[] = [];
  const buyerReference = getPath(body, 'invoice.buyerReference');
  for (const element of MANDATORY_ELEMENTS) {
    const result = check(getPath(body, element.path), element, element.location);
    if (result === undefined) continue;
    // The specification makes the order number mandatory; BIS asks for it (R003) only when
    // there is no buyer reference, so with one the missing number is the service's own rule.
    if (
      result.code === 'PEPPOL-EN16931-R003' &&
      typeof buyerReference === 'string' &&
      buyerReference !== ''
    ) {
      result.code = 'SIM-OR-02';
    }
    results.push(result);
  }
  const lines = getPath(body, 'invoice.invoiceLines');
  if (!Array.isArray(lines) || lines.length === 0) {
    results.push({
      type: 'error',
      code: lines === undefined || Array.isArray(lines) ? 'BR-16' : 'schema',
      message: 'invoiceLines must be an array with at least one line',
      location: '/Invoice/cac:InvoiceLine',
    });
  } else {
    lines.forEach((line, index) => {
      const base = `/Invoice/cac:InvoiceLine[${index + 1}]`;
      for (const element of MANDATORY_LINE_ELEMENTS) {
        const result = check(getPath(line, element.path), element, `${base}/${element.location}`);
        if (result !== undefined) results.push(result);
      }
    });
  }
  results.push(...checkBusinessRules(readBillingDocument(body)));
  return sortValidationResults(results);
}
