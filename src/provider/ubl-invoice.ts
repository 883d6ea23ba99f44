/**
 * Renders a validated submit-invoice body as a UBL 2.1 Invoice following Peppol BIS Billing 3,
 * or as a UBL 2.1 CreditNote of the same content (a scenario that asks for one): the core
 * document a receiver fetches from GET /messages/:mid/documents/core. It is a faithful-looking
 * document for tests and demos, not a certified conversion: totals are summed from the lines,
 * and codes (units, tax categories) are passed through as sent.
 */
import type { DocumentTransaction, InvoiceLine, SubmitInvoiceBody } from '../protocol/index.ts';
import { CAC, CBC, el, endpoint, group, lineItem, money, postalAddress } from './ubl-elements.ts';

export const UBL_INVOICE_NAMESPACE = 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2';
export const UBL_CREDIT_NOTE_NAMESPACE =
  'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2';

/** The `transaction` identifiers of the Core and Original document entries. */
export const PEPPOL_BILLING_TRANSACTION: DocumentTransaction = {
  transactionKeyName: 'PeppolBisBilling3Invoice',
  profileIdentifier: 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0',
  customizationIdentifier:
    'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0',
  documentIdentifier: `${UBL_INVOICE_NAMESPACE}::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1`,
};

/** The same for a credit note: Peppol BIS Billing 3 has one profile for both documents. */
export const PEPPOL_CREDIT_NOTE_TRANSACTION: DocumentTransaction = {
  ...PEPPOL_BILLING_TRANSACTION,
  transactionKeyName: 'PeppolBisBilling3CreditNote',
  documentIdentifier: `${UBL_CREDIT_NOTE_NAMESPACE}::CreditNote##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1`,
};

/** The element names that differ between the two documents. */
const VARIANTS = {
  Invoice: {
    root: 'Invoice',
    namespace: UBL_INVOICE_NAMESPACE,
    typeCode: 'cbc:InvoiceTypeCode',
    typeCodeValue: '380',
    line: 'cac:InvoiceLine',
    quantity: 'cbc:InvoicedQuantity',
  },
  CreditNote: {
    root: 'CreditNote',
    namespace: UBL_CREDIT_NOTE_NAMESPACE,
    typeCode: 'cbc:CreditNoteTypeCode',
    typeCodeValue: '381',
    line: 'cac:CreditNoteLine',
    quantity: 'cbc:CreditedQuantity',
  },
} as const;

export type UblBillingDocument = keyof typeof VARIANTS;

function line(
  item: InvoiceLine,
  index: number,
  currency: string,
  variant: (typeof VARIANTS)[UblBillingDocument],
): string {
  return group(
    variant.line,
    el('cbc:ID', String(index + 1)),
    el(variant.quantity, String(item.quantity), { unitCode: item.unitOfMeasure.unit }),
    money('cbc:LineExtensionAmount', item.taxableAmount, currency),
    group('cac:TaxTotal', money('cbc:TaxAmount', item.taxAmount, currency)),
    lineItem(item),
    group('cac:Price', money('cbc:PriceAmount', item.unitPriceAmount, currency)),
  );
}

export interface UblRenderOptions {
  /** @default 'Invoice' */
  document?: UblBillingDocument;
  /**
   * XML inserted after the order reference, where UBL puts cac:AdditionalDocumentReference
   * (an embedded attachment). @default none
   */
  additionalDocumentReference?: string | undefined;
}

export function renderUblInvoice(body: SubmitInvoiceBody, options: UblRenderOptions = {}): string {
  const variant = VARIANTS[options.document ?? 'Invoice'];
  const { invoice } = body;
  const currency = invoice.currencyCode;
  const net = invoice.invoiceLines.reduce((sum, l) => sum + l.taxableAmount, 0);
  const tax = invoice.invoiceLines.reduce((sum, l) => sum + l.taxAmount, 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<${variant.root} xmlns="${variant.namespace}" xmlns:cac="${CAC}" xmlns:cbc="${CBC}">`,
    el('cbc:CustomizationID', PEPPOL_BILLING_TRANSACTION.customizationIdentifier),
    el('cbc:ProfileID', PEPPOL_BILLING_TRANSACTION.profileIdentifier),
    el('cbc:ID', invoice.invoiceNo),
    el('cbc:IssueDate', invoice.issueDate.slice(0, 10)),
    el(variant.typeCode, variant.typeCodeValue),
    el('cbc:DocumentCurrencyCode', currency),
    group(
      'cac:OrderReference',
      el('cbc:ID', invoice.orderReference.documentNo),
      el('cbc:IssueDate', invoice.orderReference.issueDate.slice(0, 10)),
    ),
    ...(options.additionalDocumentReference === undefined
      ? []
      : [options.additionalDocumentReference]),
    group(
      'cac:AccountingSupplierParty',
      group(
        'cac:Party',
        endpoint(invoice.supplier.identifier),
        postalAddress(invoice.supplier.address),
        group(
          'cac:PartyTaxScheme',
          el('cbc:CompanyID', invoice.supplier.vatNumber),
          group('cac:TaxScheme', el('cbc:ID', 'VAT')),
        ),
        group('cac:PartyLegalEntity', el('cbc:RegistrationName', invoice.supplier.name)),
      ),
    ),
    group(
      'cac:AccountingCustomerParty',
      group(
        'cac:Party',
        endpoint(invoice.customer.identifier),
        postalAddress(invoice.customer.address),
        group('cac:PartyLegalEntity', el('cbc:RegistrationName', invoice.customer.name)),
        group('cac:Contact', el('cbc:ElectronicMail', body.messageHandling.fallbackEmailAddress)),
      ),
    ),
    group('cac:TaxTotal', money('cbc:TaxAmount', tax, currency)),
    group(
      'cac:LegalMonetaryTotal',
      money('cbc:LineExtensionAmount', net, currency),
      money('cbc:TaxExclusiveAmount', net, currency),
      money('cbc:TaxInclusiveAmount', net + tax, currency),
      money('cbc:PayableAmount', net + tax, currency),
    ),
    ...invoice.invoiceLines.map((item, index) => line(item, index, currency, variant)),
    `</${variant.root}>`,
    '',
  ].join('\n');
}
