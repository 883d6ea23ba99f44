/**
 * Renders the invoice data of a message as a UBL 2.1 Order following Peppol BIS Order 3, for a
 * scenario that delivers an Order document (docs/messaging-api.md#document-formats). The
 * simulator keeps one business content per message, the invoice JSON: the order carries the
 * same parties, lines and number (the descriptor's documentNo), with the customer as buyer and
 * the supplier as seller. Like ubl-invoice.ts, faithful-looking, not certified.
 */
import type {
  DocumentTransaction,
  InvoiceAddress,
  InvoiceLine,
  SubmitInvoiceBody,
} from '../protocol/index.ts';
import { CAC, CBC, el, endpoint, group, lineItem, money, postalAddress } from './ubl-elements.ts';

export const UBL_ORDER_NAMESPACE = 'urn:oasis:names:specification:ubl:schema:xsd:Order-2';

export const PEPPOL_ORDER_TRANSACTION: DocumentTransaction = {
  transactionKeyName: 'PeppolBisOrderOnly3',
  profileIdentifier: 'urn:fdc:peppol.eu:poacc:bis:order_only:3',
  customizationIdentifier: 'urn:fdc:peppol.eu:poacc:trns:order:3',
  documentIdentifier: `${UBL_ORDER_NAMESPACE}::Order##urn:fdc:peppol.eu:poacc:trns:order:3::2.1`,
};

function orderLine(item: InvoiceLine, index: number, currency: string): string {
  return group(
    'cac:OrderLine',
    group(
      'cac:LineItem',
      el('cbc:ID', String(index + 1)),
      el('cbc:Quantity', String(item.quantity), { unitCode: item.unitOfMeasure.unit }),
      money('cbc:LineExtensionAmount', item.taxableAmount, currency),
      group('cac:Price', money('cbc:PriceAmount', item.unitPriceAmount, currency)),
      lineItem(item),
    ),
  );
}

/** `additionalDocumentReference`: XML put where UBL's Order has it (an embedded attachment). */
export function renderUblOrder(
  body: SubmitInvoiceBody,
  options: { additionalDocumentReference?: string | undefined } = {},
): string {
  const { invoice } = body;
  const currency = invoice.currencyCode;
  const net = invoice.invoiceLines.reduce((sum, l) => sum + l.taxableAmount, 0);
  const tax = invoice.invoiceLines.reduce((sum, l) => sum + l.taxAmount, 0);
  const party = (identifier: string, name: string, address: InvoiceAddress) =>
    group(
      'cac:Party',
      endpoint(identifier),
      postalAddress(address),
      group('cac:PartyLegalEntity', el('cbc:RegistrationName', name)),
    );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<Order xmlns="${UBL_ORDER_NAMESPACE}" xmlns:cac="${CAC}" xmlns:cbc="${CBC}">`,
    el('cbc:CustomizationID', PEPPOL_ORDER_TRANSACTION.customizationIdentifier),
    el('cbc:ProfileID', PEPPOL_ORDER_TRANSACTION.profileIdentifier),
    el('cbc:ID', invoice.invoiceNo),
    el('cbc:IssueDate', invoice.issueDate.slice(0, 10)),
    el('cbc:OrderTypeCode', '220'),
    el('cbc:DocumentCurrencyCode', currency),
    ...(options.additionalDocumentReference === undefined
      ? []
      : [options.additionalDocumentReference]),
    group(
      'cac:BuyerCustomerParty',
      party(invoice.customer.identifier, invoice.customer.name, invoice.customer.address),
    ),
    group(
      'cac:SellerSupplierParty',
      party(invoice.supplier.identifier, invoice.supplier.name, invoice.supplier.address),
    ),
    group('cac:TaxTotal', money('cbc:TaxAmount', tax, currency)),
    group(
      'cac:AnticipatedMonetaryTotal',
      money('cbc:LineExtensionAmount', net, currency),
      money('cbc:PayableAmount', net + tax, currency),
    ),
    ...invoice.invoiceLines.map((item, index) => orderLine(item, index, currency)),
    '</Order>',
    '',
  ].join('\n');
}
