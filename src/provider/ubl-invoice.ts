/**
 * Renders a submit-invoice body as a UBL 2.1 Invoice or CreditNote following Peppol BIS
 * Billing 3.0: the core document a receiver fetches from GET /messages/:mid/documents/core.
 * The body is read as an EN 16931 document first (billing/billing-document.ts: codes mapped,
 * VAT breakdown and totals worked out), so a body that passes the simulator's validation
 * renders a document that passes the UBL 2.1 schema and the BIS 3 rules (docs/peppol.md).
 *
 * Elements come in the order the UBL 2.1 schemas fix. A value the body lacks (a document the
 * network let through with errors) is left out rather than written empty.
 */
import type { DocumentTransaction } from '../protocol/index.ts';
import {
  type BillingDocument,
  type BillingDocumentType,
  readBillingDocument,
} from './billing/billing-document.ts';
import type { BillingLine } from './billing/billing-lines.ts';
import { formatCents } from './billing/cents.ts';
import { CAC, CBC } from './ubl-elements.ts';
import { address, el, formatDecimal, group, taxCategory } from './ubl-invoice-elements.ts';
import { party } from './ubl-invoice-party.ts';

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
    namespace: UBL_INVOICE_NAMESPACE,
    typeCode: 'cbc:InvoiceTypeCode',
    line: 'cac:InvoiceLine',
    quantity: 'cbc:InvoicedQuantity',
  },
  CreditNote: {
    namespace: UBL_CREDIT_NOTE_NAMESPACE,
    typeCode: 'cbc:CreditNoteTypeCode',
    line: 'cac:CreditNoteLine',
    quantity: 'cbc:CreditedQuantity',
  },
} as const;

export type UblBillingDocument = BillingDocumentType;

export interface UblRenderOptions {
  /** @default the body's invoice.documentType, else 'Invoice' */
  document?: UblBillingDocument;
  /**
   * XML inserted after the order and billing references, where UBL puts
   * cac:AdditionalDocumentReference (an embedded attachment). @default none
   */
  additionalDocumentReference?: string | undefined;
}

function renderer(doc: BillingDocument, variant: (typeof VARIANTS)[BillingDocumentType]) {
  const currency = doc.currency;
  const money = (name: string, cents: number | undefined) =>
    el(name, cents === undefined ? undefined : formatCents(cents), { currencyID: currency });
  // Not subject to VAT (O): BR-O-02 forbids the seller's and the buyer's VAT identifiers.
  const notSubjectToVat = doc.groups.length > 0 && doc.groups.every((g) => g.categoryCode === 'O');
  const parties = { notSubjectToVat, buyerEmail: doc.buyerEmail };

  const line = (l: BillingLine) =>
    group(
      variant.line,
      el('cbc:ID', String(l.number)),
      el(variant.quantity, formatDecimal(l.quantity), { unitCode: l.unitCode ?? l.unit }),
      money('cbc:LineExtensionAmount', l.netCents),
      group('cac:OrderLineReference', el('cbc:LineID', l.orderLineReference)),
      group(
        'cac:Item',
        el('cbc:Description', l.description),
        el('cbc:Name', l.name),
        group('cac:BuyersItemIdentification', el('cbc:ID', l.buyersItemNo)),
        group('cac:SellersItemIdentification', el('cbc:ID', l.itemNo)),
        taxCategory('cac:ClassifiedTaxCategory', l.categoryCode ?? l.category, l.rate),
      ),
      group('cac:Price', el('cbc:PriceAmount', formatDecimal(l.price), { currencyID: currency })),
    );

  const paymentTerms =
    doc.documentType === 'CreditNote'
      ? (doc.paymentTerms ?? (doc.dueDate === undefined ? undefined : `Payment due ${doc.dueDate}`))
      : doc.paymentTerms;
  const means = doc.paymentMeans;
  const { totals } = doc;

  return [
    el('cbc:CustomizationID', PEPPOL_BILLING_TRANSACTION.customizationIdentifier),
    el('cbc:ProfileID', PEPPOL_BILLING_TRANSACTION.profileIdentifier),
    el('cbc:ID', doc.id),
    el('cbc:IssueDate', doc.issueDate),
    // A credit note has no due date element in UBL 2.1: it goes into its payment terms.
    doc.documentType === 'Invoice' ? el('cbc:DueDate', doc.dueDate) : '',
    el(variant.typeCode, doc.typeCode),
    el('cbc:Note', doc.note),
    el('cbc:DocumentCurrencyCode', currency),
    el('cbc:BuyerReference', doc.buyerReference),
    // BIS 3 has no order date (UBL-CR-018): the JSON keeps it, the document does not.
    group('cac:OrderReference', el('cbc:ID', doc.orderReference?.id)),
    group(
      'cac:BillingReference',
      group(
        'cac:InvoiceDocumentReference',
        el('cbc:ID', doc.billingReference?.invoiceNo),
        el('cbc:IssueDate', doc.billingReference?.issueDate),
      ),
    ),
    FILL,
    group('cac:AccountingSupplierParty', party(doc.supplier, 'supplier', parties)),
    group('cac:AccountingCustomerParty', party(doc.customer, 'customer', parties)),
    group(
      'cac:Delivery',
      el('cbc:ActualDeliveryDate', doc.delivery?.date),
      group('cac:DeliveryLocation', address('cac:Address', doc.delivery?.address)),
      group('cac:DeliveryParty', group('cac:PartyName', el('cbc:Name', doc.delivery?.name))),
    ),
    means === undefined
      ? ''
      : group(
          'cac:PaymentMeans',
          el('cbc:PaymentMeansCode', means.code),
          el('cbc:PaymentID', means.paymentId),
          group(
            'cac:PayeeFinancialAccount',
            el('cbc:ID', means.accountId),
            el('cbc:Name', means.accountName),
            group('cac:FinancialInstitutionBranch', el('cbc:ID', means.bic)),
          ),
          group(
            'cac:PaymentMandate',
            el('cbc:ID', means.mandateId),
            group('cac:PayerFinancialAccount', el('cbc:ID', means.payerAccountId)),
          ),
        ),
    group('cac:PaymentTerms', el('cbc:Note', paymentTerms)),
    ...doc.allowanceCharges.map((a) =>
      group(
        'cac:AllowanceCharge',
        el('cbc:ChargeIndicator', String(a.charge)),
        el('cbc:AllowanceChargeReasonCode', a.reasonCode),
        el('cbc:AllowanceChargeReason', a.reason),
        el('cbc:MultiplierFactorNumeric', formatDecimal(a.percentage)),
        money('cbc:Amount', a.amountCents),
        money(
          'cbc:BaseAmount',
          a.baseAmount === undefined ? undefined : Math.round(a.baseAmount * 100),
        ),
        taxCategory('cac:TaxCategory', a.categoryCode ?? a.category, a.rate),
      ),
    ),
    group(
      'cac:TaxTotal',
      money('cbc:TaxAmount', totals.taxCents),
      ...doc.groups.map((g) =>
        group(
          'cac:TaxSubtotal',
          money('cbc:TaxableAmount', g.taxableCents),
          money('cbc:TaxAmount', g.taxCents),
          taxCategory('cac:TaxCategory', g.categoryCode, g.rate, g),
        ),
      ),
    ),
    group(
      'cac:LegalMonetaryTotal',
      money('cbc:LineExtensionAmount', totals.lineExtensionCents),
      money('cbc:TaxExclusiveAmount', totals.taxExclusiveCents),
      money('cbc:TaxInclusiveAmount', totals.taxInclusiveCents),
      money('cbc:AllowanceTotalAmount', totals.allowanceCents),
      money('cbc:ChargeTotalAmount', totals.chargeCents),
      money('cbc:PrepaidAmount', totals.prepaidCents),
      money('cbc:PayableAmount', totals.payableCents),
    ),
    ...doc.lines.map(line),
  ];
}

/** Where the additional document reference goes; replaced before the text is joined. */
const FILL = '\u0000additional\u0000';

export function renderUblInvoice(
  body: Record<string, unknown> | object,
  options: UblRenderOptions = {},
): string {
  const doc = readBillingDocument(body as Record<string, unknown>, {
    documentType: options.document,
  });
  const variant = VARIANTS[doc.documentType];
  const parts = renderer(doc, variant).map((part) =>
    part === FILL ? (options.additionalDocumentReference ?? '') : part,
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<${doc.documentType} xmlns="${variant.namespace}" xmlns:cac="${CAC}" xmlns:cbc="${CBC}">`,
    ...parts.filter((part) => part !== ''),
    `</${doc.documentType}>`,
    '',
  ].join('\n');
}
