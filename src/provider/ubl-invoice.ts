/**
 * Renders a validated submit-invoice body as a UBL 2.1 Invoice following Peppol BIS Billing 3:
 * the core document a receiver fetches from GET /messages/:mid/documents/core. It is a
 * faithful-looking document for tests and demos, not a certified conversion: totals are
 * summed from the lines, and codes (units, tax categories) are passed through as sent.
 */
import type { DocumentTransaction } from '../protocol/index.ts';
import type { InvoiceAddress, InvoiceLine, SubmitInvoiceBody } from './invoice.ts';

export const UBL_INVOICE_NAMESPACE = 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2';
const CAC = 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2';
const CBC = 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2';

/** The `transaction` identifiers of the Core and Original document entries. */
export const PEPPOL_BILLING_TRANSACTION: DocumentTransaction = {
  transactionKeyName: 'PeppolBisBilling3Invoice',
  profileIdentifier: 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0',
  customizationIdentifier:
    'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0',
  documentIdentifier: `${UBL_INVOICE_NAMESPACE}::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1`,
};

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/**
 * One element. A document the network let through with errors (participants.ts) may lack a
 * mandatory value: it renders as an empty element rather than failing the fetch.
 */
function el(
  name: string,
  content: string | number | undefined,
  attributes: Record<string, string | undefined> = {},
) {
  const attrs = Object.entries(attributes)
    .map(([key, value]) => ` ${key}="${escapeXml(value ?? '')}"`)
    .join('');
  const text = typeof content === 'number' ? String(content) : escapeXml(content ?? '');
  return `<${name}${attrs}>${text}</${name}>`;
}

/** An element whose content is already XML. */
function group(name: string, ...children: string[]): string {
  return `<${name}>${children.join('')}</${name}>`;
}

const amount = (value: number, currency: string) =>
  el('cbc:Amount', value.toFixed(2), { currencyID: currency });

function money(name: string, value: number, currency: string): string {
  return amount(value, currency).replaceAll('cbc:Amount', name);
}

function postalAddress(address: InvoiceAddress): string {
  return group(
    'cac:PostalAddress',
    el('cbc:StreetName', address.streetNameAndNumber),
    el('cbc:CityName', address.city),
    el('cbc:PostalZone', address.postalZone),
    group('cac:Country', el('cbc:IdentificationCode', address.countryCode)),
  );
}

function endpoint(identifier: string): string {
  const [scheme = '', id = ''] = identifier.split(':');
  return el('cbc:EndpointID', id, { schemeID: scheme });
}

function line(item: InvoiceLine, index: number, currency: string): string {
  return group(
    'cac:InvoiceLine',
    el('cbc:ID', String(index + 1)),
    el('cbc:InvoicedQuantity', String(item.quantity), { unitCode: item.unitOfMeasure.unit }),
    money('cbc:LineExtensionAmount', item.taxableAmount, currency),
    group('cac:TaxTotal', money('cbc:TaxAmount', item.taxAmount, currency)),
    group(
      'cac:Item',
      el('cbc:Name', item.name),
      group('cac:SellersItemIdentification', el('cbc:ID', item.itemNo)),
      group(
        'cac:ClassifiedTaxCategory',
        el('cbc:ID', item.taxCategoryType),
        el('cbc:Percent', String(item.taxPercentage)),
        group('cac:TaxScheme', el('cbc:ID', 'VAT')),
      ),
    ),
    group('cac:Price', money('cbc:PriceAmount', item.unitPriceAmount, currency)),
  );
}

export function renderUblInvoice(body: SubmitInvoiceBody): string {
  const { invoice } = body;
  const currency = invoice.currencyCode;
  const net = invoice.invoiceLines.reduce((sum, l) => sum + l.taxableAmount, 0);
  const tax = invoice.invoiceLines.reduce((sum, l) => sum + l.taxAmount, 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<Invoice xmlns="${UBL_INVOICE_NAMESPACE}" xmlns:cac="${CAC}" xmlns:cbc="${CBC}">`,
    el('cbc:CustomizationID', PEPPOL_BILLING_TRANSACTION.customizationIdentifier),
    el('cbc:ProfileID', PEPPOL_BILLING_TRANSACTION.profileIdentifier),
    el('cbc:ID', invoice.invoiceNo),
    el('cbc:IssueDate', invoice.issueDate.slice(0, 10)),
    el('cbc:InvoiceTypeCode', '380'),
    el('cbc:DocumentCurrencyCode', currency),
    group(
      'cac:OrderReference',
      el('cbc:ID', invoice.orderReference.documentNo),
      el('cbc:IssueDate', invoice.orderReference.issueDate.slice(0, 10)),
    ),
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
    ...invoice.invoiceLines.map((item, index) => line(item, index, currency)),
    '</Invoice>',
    '',
  ].join('\n');
}
