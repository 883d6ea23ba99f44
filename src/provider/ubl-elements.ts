/**
 * The XML building blocks of the simulator's UBL 2.1 documents (ubl-invoice.ts, ubl-order.ts,
 * core-document.ts): escaping, elements, amounts, parties, items. Strings, not a DOM: the
 * documents are small and their element order is fixed by the UBL schemas.
 */
import type { InvoiceAddress, InvoiceLine } from '../protocol/index.ts';

export const CAC = 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2';
export const CBC = 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2';

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
export function el(
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
export function group(name: string, ...children: string[]): string {
  return `<${name}>${children.join('')}</${name}>`;
}

const amount = (value: number, currency: string) =>
  el('cbc:Amount', value.toFixed(2), { currencyID: currency });

export function money(name: string, value: number, currency: string): string {
  return amount(value, currency).replaceAll('cbc:Amount', name);
}

export function postalAddress(address: InvoiceAddress): string {
  return group(
    'cac:PostalAddress',
    el('cbc:StreetName', address.streetNameAndNumber),
    el('cbc:CityName', address.city),
    el('cbc:PostalZone', address.postalZone),
    group('cac:Country', el('cbc:IdentificationCode', address.countryCode)),
  );
}

export function endpoint(identifier: string): string {
  const [scheme = '', id = ''] = identifier.split(':');
  return el('cbc:EndpointID', id, { schemeID: scheme });
}

/** The cac:Item of a line, the same in an invoice, a credit note and an order. */
export function lineItem(line: InvoiceLine): string {
  return group(
    'cac:Item',
    el('cbc:Name', line.name),
    group('cac:SellersItemIdentification', el('cbc:ID', line.itemNo)),
    group(
      'cac:ClassifiedTaxCategory',
      el('cbc:ID', line.taxCategoryType),
      el('cbc:Percent', String(line.taxPercentage)),
      group('cac:TaxScheme', el('cbc:ID', 'VAT')),
    ),
  );
}
